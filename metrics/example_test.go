package metrics_test

import (
	"context"
	"encoding/json"
	"expvar"
	"fmt"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/metrics"
)

// Publish a keyspace's statistics on /debug/vars (served by http.DefaultServeMux).
func ExampleDBVar() {
	db := zlite.New()
	db.RPush(context.Background(), "jobs", "a", "b")

	expvar.Publish("zlite", metrics.DBVar(db))

	// What a client of /debug/vars finds under "zlite", and reads back in Go:
	js := expvar.Get("zlite").String()
	fmt.Println(js)
	var st zlite.Stats
	json.Unmarshal([]byte(js), &st)
	fmt.Println(st.Keys, st.Types["list"].Elements, st.Command["rpush"].Calls)
	// Output:
	// {"keys":1,"expires":0,"expired_keys":0,"types":{"list":{"keys":1,"elements":2,"bytes":104}},"blocked":0,"commands":1,"command":{"rpush":{"calls":1}}}
	// 1 2 1
}
