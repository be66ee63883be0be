package prom_test

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/metrics/prom"
	"github.com/zlite/zlite/queues"
)

// Export a queue's statistics on /metrics.
func ExampleNewCollector() {
	jobs := queues.NewFIFO(queues.NewEmbedded(zlite.New()), "jobs")
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
