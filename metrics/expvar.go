package metrics

import (
	"expvar"

	"github.com/zlite/zlite"
)

// DBVar returns an [expvar.Var] whose value is db.Stats(), taken at each read; publish
// it with expvar.Publish. Each read costs a [zlite.DB.Stats] call, O(keys) under the
// keyspace lock.
func DBVar(db *zlite.DB) expvar.Func {
	return func() any { return db.Stats() }
}
