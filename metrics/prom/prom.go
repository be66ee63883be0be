package prom

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zlite/zlite/queues"
)

// Collector is a [prometheus.Collector] of the Stats of a fixed set of queues. It is
// safe for concurrent use.
type Collector struct {
	queues  []queues.StatsReader
	timeout time.Duration
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a Collector of qs whose Stats calls each get timeout (≤ 0:
// 2 s), so that a stalled Redis cannot hang a scrape.
func NewCollector(timeout time.Duration, qs ...queues.StatsReader) *Collector {
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	return &Collector{queues: qs, timeout: timeout}
}

var (
	labels = []string{"queue", "type"}

	descUp         = desc("up", "1 if the last Stats call for the queue succeeded, else 0.")
	descDepth      = desc("depth", "Items waiting in the queue.")
	descLevelDepth = prometheus.NewDesc("zlite_queue_level_depth",
		"Items waiting per level, priority or party size.", append(labels, "level"), nil)
	descDue          = desc("due", "Waiting jobs already due (delayed queue, scheduler).")
	descInFlight     = desc("in_flight", "Elements in processing (reliable queue).")
	descDead         = desc("dead", "Elements in the dead set (reliable queue with a delivery limit).")
	descOldestAge    = desc("oldest_age_seconds", "How long the oldest item has waited.")
	descBlocked      = desc("blocked_consumers", "Callers of this process blocked in a pop.")
	descEnqueued     = desc("enqueued_total", "Items added by this process.")
	descDequeued     = desc("dequeued_total", "Items taken by this process.")
	descAcked        = desc("acked_total", "Deliveries acknowledged (reliable queue).")
	descRequeued     = desc("requeued_total", "Elements put back by Nack or Reap (reliable queue).")
	descExpired      = desc("expired_leases_total", "Leases found expired by Reap (reliable queue).")
	descDeadLettered = desc("dead_lettered_total", "Elements moved to the dead set after their last delivery (reliable queue).")
	descCancelled    = desc("cancelled_total", "Items removed from the middle of the queue (call queue, waitlist).")
	descLateness     = desc("lateness_seconds", "Delay from a job's due time to its delivery (delayed queue, scheduler).")
)

func desc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("zlite_queue_"+name, help, labels, nil)
}

// Describe sends the descriptors of every metric the Collector may report.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descDepth, descLevelDepth, descDue, descInFlight, descDead, descOldestAge,
		descBlocked, descEnqueued, descDequeued, descAcked, descRequeued, descExpired, descDeadLettered, descCancelled, descLateness} {
		ch <- d
	}
}

// Collect reads the Stats of every queue and sends its metrics. The complexity is
// the sum of the queues' Stats calls.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, q := range c.queues {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		s, err := q.Stats(ctx)
		cancel()
		collect(ch, s, err)
	}
}

// collect sends the metrics of one queue's Stats.
func collect(ch chan<- prometheus.Metric, s queues.Stats, err error) {
	gauge := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{s.Name, s.Type}, extra...)...)
	}
	counter := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), s.Name, s.Type)
	}
	if err != nil {
		gauge(descUp, 0)
		return
	}
	gauge(descUp, 1)
	gauge(descDepth, float64(s.Depth))
	for _, l := range s.Levels {
		gauge(descLevelDepth, float64(l.Depth), l.Level)
	}
	gauge(descBlocked, float64(s.Blocked))
	counter(descEnqueued, s.Enqueued)
	counter(descDequeued, s.Dequeued)
	if s.HasAge {
		gauge(descOldestAge, s.OldestAge.Seconds())
	}
	switch s.Type {
	case "delayed", "scheduler":
		gauge(descDue, float64(s.Due))
	case "reliable":
		gauge(descInFlight, float64(s.InFlight))
		counter(descAcked, s.Acked)
		counter(descRequeued, s.Requeued)
		counter(descExpired, s.ExpiredLeases)
		gauge(descDead, float64(s.Dead))
		counter(descDeadLettered, s.DeadLettered)
	case "callqueue", "waitlist":
		counter(descCancelled, s.Cancelled)
	}
	if l := s.Lateness; l != nil {
		buckets := make(map[float64]uint64, len(l.Buckets))
		for _, b := range l.Buckets {
			buckets[b.UpperBound.Seconds()] = b.Count
		}
		ch <- prometheus.MustNewConstHistogram(descLateness, l.Count, l.Sum.Seconds(), buckets, s.Name, s.Type)
	}
}
