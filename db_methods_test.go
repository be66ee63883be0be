package zlite

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zlite/zlite/internal/gendb"
)

// TestDBMethodsGenerated fails when db_methods.go is not what go generate writes:
// run go generate in the root package.
func TestDBMethodsGenerated(t *testing.T) {
	want, err := gendb.Generate(".")
	require.NoError(t, err)
	got, err := os.ReadFile(gendb.Output)
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go generate in the root package", gendb.Output)
	}
}

// TestDBMethodsMatchTx requires the DB and Tx method sets to agree: every exported
// Tx method has a DB method of the same name taking a context first, then the same
// parameters and results, and every DB method but Update, View, Stats,
// CommandCalls, Watch, StartExpiry, Close, Snapshot, the Pub/Sub ones and the
// keyspace-event settings (not of the keys, so not of a batch) has a Tx counterpart; Tx.MuteEvents, which
// changes how a batch's commands run, has no DB method.
func TestDBMethodsMatchTx(t *testing.T) {
	dbOnly := map[string]bool{"Update": true, "UpdateKeys": true, "View": true, "ViewKeys": true, "Stats": true, "CommandCalls": true, "Watch": true, "StartExpiry": true, "Close": true, "Snapshot": true,
		"EncodingLimits": true, "SetEncodingLimits": true,
		"Publish": true, "SPublish": true, "Subscribe": true, "PSubscribe": true, "SSubscribe": true, "PubSub": true,
		"KeyspaceEvents": true, "SetKeyspaceEvents": true, "SetEventHub": true, "Persistence": true}
	txOnly := map[string]bool{"MuteEvents": true}
	ctxType := reflect.TypeFor[context.Context]()
	dbT, txT := reflect.TypeFor[*DB](), reflect.TypeFor[*Tx]()
	for i := range txT.NumMethod() {
		tm := txT.Method(i)
		if txOnly[tm.Name] {
			continue
		}
		dm, ok := dbT.MethodByName(tm.Name)
		if !assertf(t, ok, "Tx.%s has no DB method", tm.Name) {
			continue
		}
		// Method types include the receiver: (tx, args...) and (db, ctx, args...).
		tf, df := tm.Type, dm.Type
		same := df.NumIn() == tf.NumIn()+1 && df.In(1) == ctxType && df.NumOut() == tf.NumOut() &&
			df.IsVariadic() == tf.IsVariadic()
		for j := 1; same && j < tf.NumIn(); j++ {
			same = tf.In(j) == df.In(j+1)
		}
		for j := 0; same && j < tf.NumOut(); j++ {
			same = tf.Out(j) == df.Out(j)
		}
		assertf(t, same, "DB.%s is %v; want Tx.%s's %v with a context first", tm.Name, df, tm.Name, tf)
	}
	for i := range dbT.NumMethod() {
		name := dbT.Method(i).Name
		_, ok := txT.MethodByName(name)
		assertf(t, ok || dbOnly[name], "DB.%s has no Tx method", name)
	}
}

// assertf reports a failure unless ok, and returns ok.
func assertf(t *testing.T, ok bool, format string, args ...any) bool {
	t.Helper()
	if !ok {
		t.Errorf(format, args...)
	}
	return ok
}
