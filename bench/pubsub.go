package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/exp/stats"

	"github.com/zlite/zlite/bench/respbench"
	"github.com/zlite/zlite/server"
)

// pubsubShapes are the subscriber counts of the pubsub group: one publisher, one
// channel, this many subscribers of it.
var pubsubShapes = []int{1, 100}

// The variants of a pubsub row: which of zlite's paths its zlite figure is.
const (
	pubsubEmbedded = ""       // db.Publish and pubsub.Subscriber.Receive, in process
	pubsubServer   = "server" // go-redis on zlite-server over loopback TCP
	pubsubDialer   = "dialer" // go-redis through the in-process server.Dialer
)

// pubsubVariants lists the variants in row order.
var pubsubVariants = []string{pubsubEmbedded, pubsubServer, pubsubDialer}

// pubsubStop is the payload that ends a measurement's subscribers.
const pubsubStop = "stop"

// A pubSubber is a System with Pub/Sub: the pubsub group measures it along the
// paths it opens.
type pubSubber interface {
	// hasPubSub reports whether the group measures the system: false where it
	// would measure another system's Pub/Sub again.
	hasPubSub() bool
	// pubSubPaths opens the ways the group reaches the system's Pub/Sub; close
	// releases what they hold.
	pubSubPaths(ctx context.Context) (paths []*pubSubPath, close func(), err error)
}

// hasPubSub reports whether the pubsub group measures s.
func hasPubSub(s System) bool {
	p, ok := s.(pubSubber)
	return ok && p.hasPubSub()
}

// A pubSubPath is one way to publish to and subscribe on a Pub/Sub.
type pubSubPath struct {
	name    string // for progress, errors and benchmark names: "zlite-server"
	column  string // the System whose column the figures go in: "zlite"
	variant string // for a zlite path, one of pubsubVariants; "" for the others
	// publish sends PUBLISH channel msg and returns the number of receivers.
	publish func(ctx context.Context, channel, msg string) (int64, error)
	// subscribe returns a subscriber of channel, subscribed when it returns.
	subscribe func(ctx context.Context, channel string) (*receiver, error)
}

// A receiver is one subscriber of a pubSubPath.
type receiver struct {
	// receive waits for the next message and returns its payload. close ends a
	// wait; ctx's end may not (go-redis does not interrupt a read on the wire).
	receive func(ctx context.Context) (string, error)
	close   func() error
}

// hasPubSub is true but for zlite-do, whose Pub/Sub is zlite's, in process, again.
func (s *zliteSys) hasPubSub() bool { return !s.do }

// pubSubPaths returns zlite's three paths: the keyspace's own (db.Publish,
// pubsub.Subscriber.Receive); go-redis on a zlite-server over loopback TCP, served
// by a process of its own ([respbench.ChildServer]); and go-redis through
// server.Dialer on the keyspace. The go-redis clients are configured as the Redis
// systems' are.
func (s *zliteSys) pubSubPaths(ctx context.Context) ([]*pubSubPath, func(), error) {
	db := s.db
	embedded := &pubSubPath{name: "zlite", column: s.Name(), variant: pubsubEmbedded, publish: db.Publish,
		subscribe: func(ctx context.Context, channel string) (*receiver, error) {
			sub := db.Subscribe(ctx, channel)
			return &receiver{
				receive: func(ctx context.Context) (string, error) {
					m, err := sub.Receive(ctx)
					return m.Payload, err
				},
				close: func() error { sub.Close(); return nil },
			}, nil
		}}
	addr, stop, err := respbench.ChildServer(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: start zlite-server: %w", err)
	}
	sc := newClient(addr)
	dc := redis.NewClient(&redis.Options{Dialer: server.Dialer(db), PoolSize: 32})
	paths := []*pubSubPath{embedded,
		goRedisPubSub("zlite-server", s.Name(), pubsubServer, sc),
		goRedisPubSub("zlite-dialer", s.Name(), pubsubDialer, dc)}
	return paths, func() {
		sc.Close()
		dc.Close()
		stop()
	}, nil
}

// hasPubSub is true but for redis-pipe, whose server is redis's.
func (s *goRedis) hasPubSub() bool { return s.pipe == 0 }

// pubSubPaths returns go-redis on the server: PUBLISH from the client's pool, each
// subscriber a go-redis PubSub of its own connection.
func (s *goRedis) pubSubPaths(context.Context) ([]*pubSubPath, func(), error) {
	return []*pubSubPath{goRedisPubSub(s.name, s.name, "", s.c)}, func() {}, nil
}

// goRedisPubSub returns the path through c: PUBLISH on the client, and for each
// subscriber a PubSub whose SUBSCRIBE is confirmed before it is used, read with
// ReceiveMessage (no Channel: its goroutine would add a hand-off to every
// delivery). The figures go in column's column.
func goRedisPubSub(name, column, variant string, c *redis.Client) *pubSubPath {
	return &pubSubPath{name: name, column: column, variant: variant,
		publish: func(ctx context.Context, channel, msg string) (int64, error) {
			return c.Publish(ctx, channel, msg).Result()
		},
		subscribe: func(ctx context.Context, channel string) (*receiver, error) {
			ps := c.Subscribe(ctx, channel)
			v, err := ps.Receive(ctx) // the confirmation: subscribed from here on
			if _, ok := v.(*redis.Subscription); err == nil && !ok {
				err = fmt.Errorf("bench: SUBSCRIBE replied %v", v)
			}
			if err != nil {
				ps.Close()
				return nil, err
			}
			return &receiver{
				receive: func(ctx context.Context) (string, error) {
					m, err := ps.ReceiveMessage(ctx)
					if err != nil {
						return "", err
					}
					return m.Payload, nil
				},
				close: ps.Close,
			}, nil
		}}
}

// pubsubTitle is the Workload of a pubsub row.
func pubsubTitle(variant string, subscribers int) string {
	t := fmt.Sprintf("PUBLISH→SUBSCRIBE 1/%d", subscribers)
	switch variant {
	case pubsubServer:
		t += " (go-redis, zlite server over TCP)"
	case pubsubDialer:
		t += " (go-redis, Dialer vs TCP)"
	}
	return t
}

// pubsubID is the ID of a pubsub row.
func pubsubID(variant string, subscribers int) string {
	if variant == "" {
		return fmt.Sprintf("publish-1x%d", subscribers)
	}
	return fmt.Sprintf("publish-%s-1x%d", variant, subscribers)
}

// runPubSub runs the pubsub group: for each shape, one publisher and that many
// subscribers of one channel on every path of every system with Pub/Sub (zlite:
// embedded, zlite-server over TCP, the Dialer; Redis and miniredis: go-redis over
// TCP), the paths taking turns in each of cfg.Runs rounds, each run a [fanout].
// Each shape gives three rows (ops/s, p50, p99) per zlite path, its figure in the
// zlite column; the peers' figures, from the same runs, are in each of them. The
// zlite server runs in a process of its own, as redis-server does (see runResp):
// the running executable must call respbench.ServeIfChild first thing in main.
func runPubSub(ctx context.Context, cfg *Config, r *Report) error {
	var paths []*pubSubPath
	for _, s := range cfg.Systems {
		if !hasPubSub(s) {
			continue
		}
		cfg.progress("pubsub: opening %s", s.Name())
		ps, closePaths, err := s.(pubSubber).pubSubPaths(ctx)
		if err != nil {
			return fmt.Errorf("pubsub %s: %w", s.Name(), err)
		}
		defer closePaths()
		paths = append(paths, ps...)
	}
	variants := []string{pubsubEmbedded} // the peers' rows when zlite is not measured
	if slices.ContainsFunc(paths, func(p *pubSubPath) bool { return p.column == Reference }) {
		variants = nil
		for _, v := range pubsubVariants {
			if slices.ContainsFunc(paths, func(p *pubSubPath) bool { return p.column == Reference && p.variant == v }) {
				variants = append(variants, v)
			}
		}
	}
	for _, n := range pubsubShapes {
		res := map[*pubSubPath][]handoffResult{}
		for range cfg.Runs {
			for _, p := range paths {
				h, err := fanout(ctx, p, n, cfg.MinSamples, cfg.Duration/4, cfg.Duration)
				if err != nil {
					return fmt.Errorf("%s %s: %w", pubsubID(p.variant, n), p.name, err)
				}
				res[p] = append(res[p], h)
			}
		}
		for _, p := range paths {
			hs := res[p]
			cfg.progress("%-20s %-12s %s, p50 %s, p99 %s", pubsubID("", n), p.name,
				formatValue(OpsPerSec, stats.Median(pick(hs, func(h handoffResult) float64 { return h.perSec }))),
				formatValue(LatencyP50, stats.Median(pick(hs, func(h handoffResult) float64 { return h.p50 }))),
				formatValue(LatencyP99, stats.Median(pick(hs, func(h handoffResult) float64 { return h.p99 }))))
		}
		for _, v := range variants {
			rows := [3]Row{}
			for i, m := range []Metric{OpsPerSec, LatencyP50, LatencyP99} {
				rows[i] = Row{Group: "pubsub", Workload: pubsubTitle(v, n), ID: pubsubID(v, n), Metric: m, Values: map[string]float64{}}
			}
			for _, p := range paths {
				if p.column == Reference && p.variant != v {
					continue
				}
				hs := res[p]
				rows[0].set(p.column, pick(hs, func(h handoffResult) float64 { return h.perSec }))
				rows[1].set(p.column, pick(hs, func(h handoffResult) float64 { return h.p50 }))
				rows[2].set(p.column, pick(hs, func(h handoffResult) float64 { return h.p99 }))
			}
			r.Rows = append(r.Rows, rows[:]...)
		}
		cfg.bar.finished()
	}
	return nil
}

// fanout runs one publisher and subscribers subscribers of one channel on p for
// warm+dur and returns deliveries per second (a PUBLISH delivers one message to
// each subscriber) and the p50 and p99 of a delivery's latency, from just before
// the PUBLISH to the subscriber's receipt. The loop is closed, as [handoff]'s: the
// publisher publishes a message only once every subscriber has received the one
// before, so at most one message is in flight and the latency is the fan-out, not
// queueing. Figures cover the receipts in [warm, end), where end is warm+dur or,
// on a path too slow to make minSamples deliveries by then, the moment it has.
func fanout(ctx context.Context, p *pubSubPath, subscribers, minSamples int, warm, dur time.Duration) (res handoffResult, err error) {
	f, err := openFan(ctx, p, subscribers, warm, minSamples, 0)
	if err != nil {
		return handoffResult{}, err
	}
	stop := make(chan struct{})
	var pw sync.WaitGroup
	pw.Go(func() {
		for {
			ok, err := f.await(stop)
			if err == nil && ok {
				err = f.publish(ctx)
			}
			if err != nil {
				f.fail(err)
			}
			if err != nil || !ok {
				return
			}
		}
	})
	timer := time.NewTimer(warm + dur)
	select {
	case <-timer.C:
	case <-f.failed:
	case <-ctx.Done():
	}
	timer.Stop()
	guard := time.NewTimer(stallTimeout)
	select {
	case <-f.enough:
	case <-f.failed:
	case <-guard.C:
	case <-ctx.Done():
	}
	guard.Stop()
	end := time.Since(f.base)
	close(stop)
	pw.Wait()
	if err := f.close(ctx); err != nil {
		return handoffResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return handoffResult{}, err
	}
	all := f.latencies(end)
	if len(all) < minSamples {
		return handoffResult{}, fmt.Errorf("bench: %d deliveries in %v; want at least %d", len(all), stallTimeout, minSamples)
	}
	q := stats.Quantiles(all, 0.50, 0.99)
	return handoffResult{perSec: float64(len(all)) / (end - warm).Seconds(), p50: q[0], p99: q[1]}, nil
}

// A fan is a publisher's closed loop over the subscribers of one channel: [fan.await]
// waits until the message in flight reached every subscriber, [fan.publish] sends
// the next. One goroutine publishes; each subscriber has its own.
type fan struct {
	path    *pubSubPath
	channel string
	recv    []*receiver
	n       int64 // subscribers
	base    time.Time
	from    time.Duration // receipts before it are warm-up, not samples

	seq     int
	sent    atomic.Int64  // when the message in flight was published, since base
	pending atomic.Int64  // subscribers that have not received it yet
	idle    chan struct{} // holds a value while no message is in flight
	stall   *time.Timer   // bounds await

	samples    [][]sample // by subscriber
	keep       int        // samples kept per subscriber, the latest; 0 keeps all
	counted    atomic.Int64
	minSamples int64
	enough     chan struct{} // closed at minSamples samples

	errMu    sync.Mutex
	err      error
	failed   chan struct{} // closed at the first error
	cancel   context.CancelFunc
	received sync.WaitGroup
}

// sample is one delivery: when it was received (since the fan's base) and its
// latency.
type sample struct{ at, lat time.Duration }

// openFan subscribes subscribers receivers to a channel of p, collects the heap
// (so that no path pays for the garbage of the one before it) and starts the
// subscribers; receipts from from on are samples, and minSamples of them close
// f.enough. With keep > 0 each subscriber keeps its latest keep samples, in
// memory allocated here (a Go benchmark's allocations are then the paths' own).
func openFan(ctx context.Context, p *pubSubPath, subscribers int, from time.Duration, minSamples, keep int) (*fan, error) {
	f := &fan{path: p, channel: "bench:pubsub:" + p.name, n: int64(subscribers), from: from,
		idle: make(chan struct{}, 1), samples: make([][]sample, subscribers), keep: keep, minSamples: int64(minSamples),
		enough: make(chan struct{}), failed: make(chan struct{})}
	if keep > 0 {
		for i := range f.samples {
			f.samples[i] = make([]sample, 0, keep)
		}
	}
	for range subscribers {
		r, err := p.subscribe(ctx, f.channel)
		if err != nil {
			f.closeReceivers()
			return nil, fmt.Errorf("bench: SUBSCRIBE: %w", err)
		}
		f.recv = append(f.recv, r)
	}
	f.idle <- struct{}{}
	f.stall = time.NewTimer(stallTimeout)
	f.stall.Stop()
	rctx, cancel := context.WithCancel(ctx)
	f.cancel = cancel
	runtime.GC()
	f.base = time.Now()
	for i, r := range f.recv {
		f.received.Go(func() { f.subscriber(rctx, i, r) })
	}
	return f, nil
}

// subscriber receives messages on r, the i-th subscriber, until the stop message,
// checking that they come in order, none lost or repeated; the last one to receive
// a message makes the fan idle.
func (f *fan) subscriber(ctx context.Context, i int, r *receiver) {
	last, seen := -1, 0
	for {
		v, err := r.receive(ctx)
		now := time.Since(f.base)
		if err != nil {
			f.fail(fmt.Errorf("bench: subscriber %d: %w", i, err))
			return
		}
		if v == pubsubStop {
			return
		}
		seq, err := strconv.Atoi(v)
		if err != nil || seq != last+1 {
			f.fail(fmt.Errorf("bench: subscriber %d received %q after message %d", i, v, last))
			return
		}
		last = seq
		if now >= f.from {
			x := sample{now, now - time.Duration(f.sent.Load())}
			if ss := f.samples[i]; f.keep > 0 && len(ss) == f.keep {
				ss[seen%f.keep] = x
			} else {
				f.samples[i] = append(ss, x)
			}
			seen++
			if f.counted.Add(1) == f.minSamples {
				close(f.enough)
			}
		}
		if f.pending.Add(-1) == 0 {
			f.idle <- struct{}{}
		}
	}
}

// fail records err, the first error of the fan wins, and wakes whoever waits.
func (f *fan) fail(err error) {
	f.errMu.Lock()
	defer f.errMu.Unlock()
	if f.err == nil {
		f.err = err
		close(f.failed)
	}
}

// await waits until no message is in flight; false when stop came first. It
// returns an error when a subscriber failed, or when the message in flight has not
// reached every subscriber within stallTimeout: it was lost.
func (f *fan) await(stop <-chan struct{}) (bool, error) {
	f.stall.Reset(stallTimeout)
	defer f.stall.Stop()
	select {
	case <-f.idle:
		return true, nil
	case <-stop:
		return false, nil
	case <-f.failed:
		return false, nil // the error is the fan's
	case <-f.stall.C:
		return false, fmt.Errorf("bench: message %d did not reach every subscriber in %v", f.seq-1, stallTimeout)
	}
}

// publish publishes the next message, after [fan.await] returned true, and checks
// that it reached every subscriber.
func (f *fan) publish(ctx context.Context) error {
	msg := strconv.Itoa(f.seq)
	f.seq++
	f.pending.Store(f.n)
	f.sent.Store(int64(time.Since(f.base)))
	got, err := f.path.publish(ctx, f.channel, msg)
	if err != nil {
		return fmt.Errorf("bench: PUBLISH: %w", err)
	}
	if got != f.n {
		return fmt.Errorf("bench: PUBLISH reached %d subscribers; want %d", got, f.n)
	}
	return nil
}

// close, once nothing publishes, publishes the stop message (after the message in
// flight, if any, which the subscribers still take), waits up to stallTimeout for
// the subscribers to stop (then ends their waits), closes them and returns the
// fan's first error.
func (f *fan) close(ctx context.Context) error {
	if got, err := f.path.publish(ctx, f.channel, pubsubStop); err != nil {
		f.fail(fmt.Errorf("bench: PUBLISH %s: %w", pubsubStop, err))
	} else if got != f.n {
		f.fail(fmt.Errorf("bench: PUBLISH %s reached %d subscribers; want %d", pubsubStop, got, f.n))
	}
	done := make(chan struct{})
	go func() {
		f.received.Wait()
		close(done)
	}()
	timer := time.NewTimer(stallTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		f.fail(errors.New("bench: a published message never reached a subscriber"))
	}
	f.cancel()
	closeErr := f.closeReceivers() // ends the waits of the subscribers still waiting
	<-done
	f.errMu.Lock()
	defer f.errMu.Unlock()
	return errors.Join(f.err, closeErr)
}

func (f *fan) closeReceivers() error {
	var errs []error
	for _, r := range f.recv {
		errs = append(errs, r.close())
	}
	return errors.Join(errs...)
}

// latencies returns the latencies, in seconds and sorted, of the samples received
// before end.
func (f *fan) latencies(end time.Duration) []float64 {
	var all []float64
	for _, ss := range f.samples {
		for _, x := range ss {
			if x.at < end {
				all = append(all, x.lat.Seconds())
			}
		}
	}
	slices.Sort(all) // Quantiles is faster on sorted input
	return all
}
