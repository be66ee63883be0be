package prom_test

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/metrics/prom"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// Export a queue's statistics on /metrics.
func ExampleNewCollector() {
	jobs := queues.NewFIFO(embedded.New(zlite.New()), "jobs")
	jobs.Push(context.Background(), "a", "b")

	reg := prometheus.NewRegistry()
	reg.MustRegister(prom.NewCollector(2*time.Second, jobs))
	// Serve it: http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})).

	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "zlite_queue_depth" {
			fmt.Println(mf.GetName(), mf.GetMetric()[0].GetGauge().GetValue())
		}
	}
	// Output:
	// zlite_queue_depth 2
}

// Export a keyspace's statistics on /metrics.
func ExampleNewDBCollector() {
	ctx := context.Background()
	db := zlite.New(zlite.WithLatencyTracking())
	db.ZAdd(ctx, "board", zlite.Z{Score: 1, Member: "ann"}, zlite.Z{Score: 2, Member: "bob"})
	db.RPush(ctx, "jobs", "a", "b", "c")

	reg := prometheus.NewRegistry()
	reg.MustRegister(prom.NewDBCollector(db))
	// Serve it: http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})).

	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetName() {
			case "zlite_elements":
				fmt.Println(mf.GetName(), m.GetLabel()[0].GetValue(), m.GetGauge().GetValue())
			case "zlite_command_duration_seconds":
				fmt.Println(mf.GetName(), m.GetLabel()[0].GetValue(), m.GetHistogram().GetSampleCount())
			}
		}
	}
	// Output:
	// zlite_command_duration_seconds rpush 1
	// zlite_command_duration_seconds zadd 1
	// zlite_elements list 3
	// zlite_elements zset 2
}
