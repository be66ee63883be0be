package queues

import "testing"

// BenchmarkCounters is the in-process cost of Stats on one FIFO element: the
// producer's count and the consumer's enter/leave, on one goroutine (uncontended,
// as they are in the hand-off, where they sit on separate cache lines). Compare it
// with the hand-off's ns per element (BenchmarkStatsOverhead): a load-independent
// bound on the overhead.
func BenchmarkCounters(b *testing.B) {
	for _, on := range []bool{true, false} {
		name := "stats=on"
		if !on {
			name = "stats=off"
		}
		b.Run("op=fifo-element/"+name, func(b *testing.B) {
			c := newCounters(newConfig([]Option{WithStats(on)}), false)
			for b.Loop() {
				c.enq(1)
				c.enter()
				c.leave(true)
			}
		})
	}
}
