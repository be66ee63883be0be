// Package queuevar publishes the [queues.Stats] of a queue in package expvar, so
// that /debug/vars shows it. It is a package of its own because importing expvar
// registers the /debug/vars handler on [http.DefaultServeMux]; a program that
// imports package queues alone gets no such handler.
//
// Each request to /debug/vars reads the queue's Stats afresh, at the cost its Stats
// method gives (O(1) to O(MaxStatsLevels · log n) per queue), bounded by a timeout
// so that a stalled Redis cannot hang the page. Publish is safe for concurrent use,
// as expvar.Publish is.
package queuevar

import (
	"context"
	"expvar"
	"time"

	"github.com/zlite/zlite/queues"
)

// Publish publishes q's Stats under name in package expvar (/debug/vars), read
// afresh on each request with a timeout of timeout (≤ 0: 2 s); an error is shown as
// {"error": "…"}. Like [expvar.Publish], it panics if name is already published.
func Publish(name string, q queues.StatsReader, timeout time.Duration) {
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	expvar.Publish(name, expvar.Func(func() any {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s, err := q.Stats(ctx)
		if err != nil {
			return map[string]string{"error": err.Error()}
		}
		return s
	}))
}
