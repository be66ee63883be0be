package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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

// minSamples is the fewest hand-offs a figure is computed from.
const minSamples = 20

func runBlocking(ctx context.Context, cfg *Config, r *Report) error {
	for _, op := range blockingOps {
		for _, sh := range blockingShapes {
			title := fmt.Sprintf("%s %d/%d", op.title, sh[0], sh[1])
			id := fmt.Sprintf("%s-%dx%d", op.id, sh[0], sh[1])
			rows := [3]Row{}
			for i, m := range []Metric{OpsPerSec, LatencyP50, LatencyP99} {
				rows[i] = Row{Group: "blocking", Workload: title, ID: id, Metric: m, Values: map[string]float64{}}
			}
			for _, s := range cfg.Systems {
				if !s.Blocking() {
					continue
				}
				var tput, p50, p99 []float64
				for range cfg.Runs {
					h, err := handoff(ctx, s, op, sh[0], sh[1], cfg.Duration/4, cfg.Duration)
					if err != nil {
						return fmt.Errorf("%s %s: %w", id, s.Name(), err)
					}
					tput, p50, p99 = append(tput, h.perSec), append(p50, h.p50), append(p99, h.p99)
				}
				rows[0].Values[s.Name()] = median(tput)
				rows[1].Values[s.Name()] = median(p50)
				rows[2].Values[s.Name()] = median(p99)
				cfg.progress("%-20s %-10s %s, p50 %s, p99 %s", id, s.Name(), formatValue(OpsPerSec, median(tput)),
					formatValue(LatencyP50, median(p50)), formatValue(LatencyP99, median(p99)))
			}
			r.Rows = append(r.Rows, rows[:]...)
		}
	}
	return nil
}

type handoffResult struct {
	perSec   float64 // hand-offs per second
	p50, p99 float64 // seconds from just before the push to the pop's return
}

// handoff runs producers and consumers on one key for warm+dur. The loop is closed:
// at most one item per consumer is in flight (a producer takes a token before it
// pushes, a consumer gives one back after it pops), so consumers are mostly blocked
// when an item arrives and the latency is the hand-off, not queueing. Figures cover
// the pops that returned in [warm, warm+dur).
func handoff(ctx context.Context, s System, op blockingOp, producers, consumers int, warm, dur time.Duration) (handoffResult, error) {
	key := "bench:" + s.Name() + ":" + op.id
	if err := s.Del(ctx, key); err != nil {
		return handoffResult{}, err
	}
	push := func(v string, score float64) error {
		if op.zset {
			return s.ZAddOne(ctx, key, Z{Member: v, Score: score})
		}
		return s.LPush(ctx, key, v)
	}
	pop := func() (string, bool, error) {
		if op.zset {
			z, ok, err := s.BZPopMin(ctx, key, stallTimeout)
			return z.Member, ok, err
		}
		return s.BRPop(ctx, key, stallTimeout)
	}

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
				t := time.Since(base)
				if err := push(fmt.Sprintf("%d:%d:%d", p, seq, t), float64(t)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for c := range consumers {
		cw.Go(func() {
			for {
				v, ok, err := pop()
				if err == nil && !ok {
					err = errors.New("bench: a pushed item never reached a blocked consumer")
				}
				if err != nil {
					errs <- err
					return
				}
				if strings.HasPrefix(v, stopPrefix) {
					return
				}
				now := time.Since(base)
				t, err := strconv.ParseInt(v[strings.LastIndexByte(v, ':')+1:], 10, 64)
				if err != nil {
					errs <- fmt.Errorf("bench: popped %q: %w", v, err)
					return
				}
				if now >= from {
					samples[c] = append(samples[c], sample{now, now - time.Duration(t)})
					if counted.Add(1) == minSamples {
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
	var err error
	for i := range consumers {
		if e := push(fmt.Sprintf("%s%d", stopPrefix, i), 1e300); e != nil {
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
	if err := s.Del(ctx, key); err != nil {
		return handoffResult{}, err
	}
	var all []time.Duration
	for _, ss := range samples {
		for _, x := range ss {
			if x.at < end {
				all = append(all, x.lat)
			}
		}
	}
	if len(all) < minSamples {
		return handoffResult{}, fmt.Errorf("bench: %d hand-offs in %v; want at least %d", len(all), stallTimeout, minSamples)
	}
	slices.Sort(all)
	return handoffResult{
		perSec: float64(len(all)) / (end - from).Seconds(),
		p50:    percentile(all, 0.50).Seconds(),
		p99:    percentile(all, 0.99).Seconds(),
	}, nil
}

// percentile returns the q-quantile of sorted (nearest rank).
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
