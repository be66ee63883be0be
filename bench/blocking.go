package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/exp/stats"
)

// blockingOp is a producer→blocked-consumer hand-off workload.
type blockingOp struct {
	id, title string
	zset      bool // ZADD→BZPOPMIN rather than LPUSH→BRPOP
}

var blockingOps = []blockingOp{
	{id: "lpush-brpop", title: "LPUSH→BRPOP"},
	{id: "zadd-bzpopmin", title: "ZADD→BZPOPMIN", zset: true},
}

// blockingShapes are the producer/consumer counts measured.
var blockingShapes = [][2]int{{1, 1}, {4, 4}}

// stallTimeout bounds each blocking pop: in a closed loop an item is always on its
// way, so a pop that waits this long means the system lost one.
const stallTimeout = 5 * time.Second

const stopPrefix = "stop:"

// defaultMinSamples is the fewest hand-offs a figure is computed from, by default.
const defaultMinSamples = 20

func runBlocking(ctx context.Context, cfg *Config, r *Report) error {
	for _, op := range blockingOps {
		for _, sh := range blockingShapes {
			title := fmt.Sprintf("%s %d/%d", op.title, sh[0], sh[1])
			id := fmt.Sprintf("%s-%dx%d", op.id, sh[0], sh[1])
			rows := [3]Row{}
			for i, m := range []Metric{OpsPerSec, LatencyP50, LatencyP99} {
				rows[i] = Row{Group: "blocking", Workload: title, ID: id, Metric: m, Values: map[string]float64{}}
			}
			var systems []System
			for _, s := range cfg.Systems {
				if s.Blocking() {
					systems = append(systems, s)
				}
			}
			res := map[string][]handoffResult{}
			err := interleaved(cfg, systems, func(s System) error {
				ch, err := systemChannel(ctx, s, op)
				if err != nil {
					return err
				}
				h, err := handoff(ctx, ch, sh[0], sh[1], cfg.MinSamples, cfg.Duration/4, cfg.Duration)
				res[s.Name()] = append(res[s.Name()], h)
				return err
			})
			if err != nil {
				return fmt.Errorf("%s %w", id, err)
			}
			for _, s := range systems {
				hs := res[s.Name()]
				rows[0].set(s.Name(), pick(hs, func(h handoffResult) float64 { return h.perSec }))
				rows[1].set(s.Name(), pick(hs, func(h handoffResult) float64 { return h.p50 }))
				rows[2].set(s.Name(), pick(hs, func(h handoffResult) float64 { return h.p99 }))
				cfg.progress("%-20s %-10s %s, p50 %s, p99 %s", id, s.Name(), formatValue(OpsPerSec, rows[0].Values[s.Name()]),
					formatValue(LatencyP50, rows[1].Values[s.Name()]), formatValue(LatencyP99, rows[2].Values[s.Name()]))
			}
			r.Rows = append(r.Rows, rows[:]...)
			cfg.bar.finished()
		}
	}
	return nil
}

// interleaved runs f cfg.Runs times on every system, the systems taking turns
// within each round, so that a burst of other work on the machine is spread over
// the systems rather than hitting one of them.
func interleaved(cfg *Config, systems []System, f func(s System) error) error {
	for range cfg.Runs {
		for _, s := range systems {
			if err := f(s); err != nil {
				return fmt.Errorf("%s: %w", s.Name(), err)
			}
		}
	}
	return nil
}

func pick[T any](xs []T, f func(T) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

type handoffResult struct {
	perSec   float64 // hand-offs per second
	p50, p99 float64 // seconds from the push (or the due time) to the pop's return
}

// channel is what handoff drives: a blocking hand-off between producers and consumers.
type channel struct {
	// push sends v, due at due (now, except for delayed queues).
	push func(v string, due time.Time) error
	// pop waits up to stallTimeout for a value; ok is false when none came. done, when
	// not nil, finishes the delivery (an acknowledgement) after the pop was timed.
	pop func() (v string, done func() error, ok bool, err error)
	// close ends whatever the channel runs in the background and deletes its keys.
	close func() error
	// delay is how far in the future pushes are due.
	delay time.Duration
}

// systemChannel returns the LPUSH→BRPOP or ZADD→BZPOPMIN channel of op on s.
func systemChannel(ctx context.Context, s System, op blockingOp) (*channel, error) {
	key := "bench:" + s.Name() + ":" + op.id
	if err := s.Del(ctx, key); err != nil {
		return nil, err
	}
	c := &channel{close: func() error { return s.Del(ctx, key) }}
	if op.zset {
		c.push = func(v string, due time.Time) error {
			score := float64(due.UnixNano())
			if strings.HasPrefix(v, stopPrefix) {
				score = 1e300
			}
			return s.ZAddOne(ctx, key, Z{Member: v, Score: score})
		}
		c.pop = func() (string, func() error, bool, error) {
			z, ok, err := s.BZPopMin(ctx, key, stallTimeout)
			return z.Member, nil, ok, err
		}
		return c, nil
	}
	c.push = func(v string, _ time.Time) error { return s.LPush(ctx, key, v) }
	c.pop = func() (string, func() error, bool, error) {
		v, ok, err := s.BRPop(ctx, key, stallTimeout)
		return v, nil, ok, err
	}
	return c, nil
}

// handoff runs producers and consumers on ch for warm+dur. The loop is closed: at
// most one item per consumer is in flight (a producer takes a token before it
// pushes, a consumer gives one back after it pops), so consumers are mostly blocked
// when an item arrives and the latency is the hand-off, not queueing. Each value
// carries its due time (the push time plus ch.delay) and the latency is the pop's
// return minus it. Figures cover the pops that returned in [warm, end), where end is
// warm+dur or, on a system too slow to complete minSamples hand-offs by then, the
// moment it has. handoff closes ch.
func handoff(ctx context.Context, ch *channel, producers, consumers, minSamples int, warm, dur time.Duration) (res handoffResult, err error) {
	defer func() {
		if e := ch.close(); err == nil {
			err = e
		}
	}()
	runtime.GC() // no system pays for the garbage of the one measured before it
	base := time.Now()
	from, to := warm, warm+dur
	tokens := make(chan struct{}, consumers)
	for range consumers {
		tokens <- struct{}{}
	}
	stop := make(chan struct{})
	errs := make(chan error, producers+consumers)
	type sample struct{ at, lat time.Duration }
	samples := make([][]sample, consumers)
	var counted atomic.Int64
	enough := make(chan struct{})

	var pw, cw sync.WaitGroup
	for p := range producers {
		pw.Go(func() {
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				case <-tokens:
				}
				due := time.Since(base) + ch.delay
				if err := ch.push(fmt.Sprintf("%d:%d:%d", p, seq, due), base.Add(due)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for c := range consumers {
		cw.Go(func() {
			for {
				v, done, ok, err := ch.pop()
				now := time.Since(base)
				if err == nil && !ok {
					err = errors.New("bench: a pushed item never reached a blocked consumer")
				}
				if err == nil && done != nil {
					err = done()
				}
				if err != nil {
					errs <- err
					return
				}
				if strings.HasPrefix(v, stopPrefix) {
					return
				}
				t, err := strconv.ParseInt(v[strings.LastIndexByte(v, ':')+1:], 10, 64)
				if err != nil {
					errs <- fmt.Errorf("bench: popped %q: %w", v, err)
					return
				}
				if now >= from {
					samples[c] = append(samples[c], sample{now, now - time.Duration(t)})
					if counted.Add(1) == int64(minSamples) {
						close(enough)
					}
				}
				tokens <- struct{}{}
			}
		})
	}

	timer := time.NewTimer(to)
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	timer.Stop()
	guard := time.NewTimer(stallTimeout)
	select {
	case <-enough:
	case <-guard.C:
	case <-ctx.Done():
	}
	guard.Stop()
	end := time.Since(base)
	close(stop)
	pw.Wait()
	for i := range consumers {
		if e := ch.push(fmt.Sprintf("%s%d", stopPrefix, i), time.Now()); e != nil {
			err = e
		}
	}
	cw.Wait()
	close(errs)
	for e := range errs {
		err = errors.Join(err, e)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return handoffResult{}, err
	}
	var all []float64 // latencies in seconds
	for _, ss := range samples {
		for _, x := range ss {
			if x.at < end {
				all = append(all, x.lat.Seconds())
			}
		}
	}
	if len(all) < minSamples {
		return handoffResult{}, fmt.Errorf("bench: %d hand-offs in %v; want at least %d", len(all), stallTimeout, minSamples)
	}
	slices.Sort(all) // Quantiles is faster on sorted input
	q := stats.Quantiles(all, 0.50, 0.99)
	return handoffResult{perSec: float64(len(all)) / (end - from).Seconds(), p50: q[0], p99: q[1]}, nil
}
