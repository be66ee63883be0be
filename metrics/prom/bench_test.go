package prom_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/metrics/prom"
)

// BenchmarkDBCollector measures a scrape of a keyspace of small sorted sets: the
// time the keyspace lock is held (DB.Stats) and the Prometheus encoding, per key.
func BenchmarkDBCollector(b *testing.B) {
	ctx := context.Background()
	for _, keys := range []int{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			db := zlite.New(zlite.WithLatencyTracking())
			for i := range keys {
				db.ZAdd(ctx, fmt.Sprintf("key:%d", i), zlite.Z{Score: 1, Member: "m"})
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(prom.NewDBCollector(db))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := reg.Gather(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(keys), "ns/key")
		})
	}
}
