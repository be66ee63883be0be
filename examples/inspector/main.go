// Command inspector is a demo of package inspector: the queue types of package
// queues on one embedded zlite DB, fed by simulated producers and drained by
// simulated consumers, with the inspector page served on a loopback address:
//
//	go run ./examples/inspector            # prints the page's address
//	go run ./examples/inspector -addr 127.0.0.1:8080 -actions=false
//
// The payments queue delivers a charge at most three times: a charge whose worker
// died (its lease expires) or that was declined (Nack) three times is dead, listed
// on its page and on its dead-letter page, with its attempts and last error, and
// "Retry" and "Delete" buttons (or all at once). Every other waiting item has a
// "Cancel" button, and an expired lease a "Requeue" button; ticking items applies
// one of these to all of them after a confirmation; the payments queue can be
// paused and resumed. Each item's position links to its page; the pages update
// live. With -password, every page asks for it (HTTP basic authentication, user
// "admin"), through [inspector.WithAuth]. The index's keyspace panel links
// to the key browser: the DB's keys (a SCAN, by type or pattern) and a page per key.
//
// The simulation is bounded: producers stop adding to a queue that holds
// -max items (and workers stop declining charges once -max are dead), and everything stops on SIGINT or SIGTERM (or after -for, when set).
package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/inspector"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to serve the page on (port 0: any free port)")
	actions := flag.Bool("actions", true, "enable the inspector's actions (cancel, requeue, move back)")
	maxDepth := flag.Int64("max", 40, "producers add nothing to a queue holding this many items")
	runFor := flag.Duration("for", 0, "stop after this long (0: run until SIGINT or SIGTERM)")
	flag.StringVar(&password, "password", "", "ask for this password (user admin) on every page; empty: no login")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *runFor)
		defer cancel()
	}
	if err := run(ctx, *addr, *actions, *maxDepth, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "inspector:", err)
		os.Exit(1)
	}
}

// password is the -password flag: the basic-authentication password, "" for none.
var password string

// basicAuth is an authentication middleware for [inspector.WithAuth]: HTTP basic
// authentication with one user, compared in constant time.
func basicAuth(user, pass string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			u, p, ok := r.BasicAuth()
			if !ok || subtle.ConstantTimeCompare([]byte(u), []byte(user)) != 1 ||
				subtle.ConstantTimeCompare([]byte(p), []byte(pass)) != 1 {
				w.Header().Set("WWW-Authenticate", `Basic realm="zlite inspector", charset="UTF-8"`)
				http.Error(w, "log in to see the inspector", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// run serves the demo on addr until ctx is done, printing the page's URL to out.
// It returns once the server and every simulated worker have stopped.
func run(ctx context.Context, addr string, actions bool, maxDepth int64, out io.Writer) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-addr %s is not a loopback address; the demo serves only this machine", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	d := newDemo(maxDepth)
	opts := []inspector.Option{inspector.WithTitle("zlite demo queues"), inspector.WithKeyspace(d.db)}
	if actions {
		opts = append(opts, inspector.WithActions())
	}
	if password != "" {
		opts = append(opts, inspector.WithAuth(basicAuth("admin", password)))
	}
	h := inspector.New(d.inspected(), opts...)

	mux := http.NewServeMux()
	mux.Handle("/inspector/", http.StripPrefix("/inspector", h))
	mux.Handle("/{$}", http.RedirectHandler("/inspector/", http.StatusFound))
	// Requests share ctx, so that the pages' event streams end when the demo stops
	// rather than holding Shutdown up.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}

	var wg sync.WaitGroup
	wg.Go(func() { h.Run(ctx) })
	d.start(ctx, &wg)
	fmt.Fprintf(out, "inspector: http://%s/inspector/ (Ctrl-C stops)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		err = srv.Shutdown(shut)
		cancel()
		<-errc
	}
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// demo holds the queues and their simulated traffic.
type demo struct {
	db        *zlite.DB
	max       int64
	emails    *queues.FIFO
	tickets   *queues.Levels
	renders   *queues.Priority
	support   *queues.CallQueue
	reminders *queues.Delayed
	nightly   *queues.Scheduler
	reports   *queues.FIFO // nightly's work queue: one value, so that its counters add up
	payments  *queues.Reliable
	tables    *queues.Waitlist
}

var levels = []string{"urgent", "normal", "low"}

func newDemo(maxDepth int64) *demo {
	db := zlite.New(zlite.WithLatencyTracking())
	b := embedded.New(db)
	d := &demo{
		db:        db,
		max:       maxDepth,
		emails:    queues.NewFIFO(b, "emails"),
		tickets:   queues.NewLevels(b, "tickets", levels),
		renders:   queues.NewPriority(b, "renders"),
		support:   queues.NewCallQueue(b, "support"),
		reminders: queues.NewDelayed(b, "reminders"),
		nightly:   queues.NewScheduler(b, "nightly", queues.WithBatch(10)),
		payments:  queues.NewReliable(b, "payments", queues.WithLease(3*time.Second), queues.WithMaxDeliveries(3)),
		tables:    queues.NewWaitlist(b, "tables"),
	}
	d.reports = d.nightly.Queue("reports")
	return d
}

func (d *demo) inspected() []inspector.Queue {
	return []inspector.Queue{
		inspector.FIFO("emails", d.emails),
		inspector.Levels("tickets", d.tickets),
		inspector.Priority("renders", d.renders),
		inspector.CallQueue("support", d.support),
		inspector.Delayed("reminders", d.reminders),
		inspector.Scheduler("nightly", d.nightly),
		inspector.FIFO("nightly work", d.reports),
		inspector.Reliable("payments", d.payments, nil),
		inspector.Waitlist("tables", d.tables),
	}
}

// every runs f every period (±50% jitter) until ctx is done. f's errors end the
// loop only when they come from ctx.
func every(ctx context.Context, wg *sync.WaitGroup, period time.Duration, f func(ctx context.Context, n int) error) {
	wg.Go(func() {
		t := time.NewTimer(period)
		defer t.Stop()
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := f(ctx, n); err != nil && ctx.Err() != nil {
				return
			}
			t.Reset(period/2 + rand.N(period))
		}
	})
}

// room reports whether a queue of length n (or its read error) may grow.
func (d *demo) room(n int64, err error) bool { return err == nil && n < d.max }

// start runs the producers and consumers until ctx is done.
func (d *demo) start(ctx context.Context, wg *sync.WaitGroup) {
	every(ctx, wg, 150*time.Millisecond, func(ctx context.Context, n int) error {
		if !d.room(d.emails.Len(ctx)) {
			return nil
		}
		return d.emails.Push(ctx, "welcome mail #"+strconv.Itoa(n))
	})
	every(ctx, wg, 130*time.Millisecond, func(ctx context.Context, _ int) error {
		_, _, err := d.emails.Pop(ctx, time.Second)
		return err
	})
	every(ctx, wg, 120*time.Millisecond, func(ctx context.Context, n int) error {
		lvl := levels[rand.N(len(levels))]
		if !d.room(d.tickets.Len(ctx, lvl)) {
			return nil
		}
		return d.tickets.Push(ctx, lvl, "ticket #"+strconv.Itoa(n))
	})
	every(ctx, wg, 110*time.Millisecond, func(ctx context.Context, _ int) error {
		_, _, _, err := d.tickets.Pop(ctx, time.Second)
		return err
	})
	every(ctx, wg, 100*time.Millisecond, func(ctx context.Context, n int) error {
		if !d.room(d.renders.Len(ctx)) {
			return nil
		}
		_, err := d.renders.Push(ctx, "frame "+strconv.Itoa(n), float64(rand.N(10)))
		return err
	})
	every(ctx, wg, 95*time.Millisecond, func(ctx context.Context, _ int) error {
		_, _, _, err := d.renders.Pop(ctx, time.Second)
		return err
	})
	every(ctx, wg, 400*time.Millisecond, func(ctx context.Context, n int) error {
		if !d.room(d.support.Len(ctx)) {
			return nil
		}
		return d.support.Enqueue(ctx, "caller-"+strconv.Itoa(n), float64(rand.N(3)))
	})
	every(ctx, wg, 380*time.Millisecond, func(ctx context.Context, _ int) error {
		_, _, err := d.support.Dequeue(ctx, time.Second)
		return err
	})
	every(ctx, wg, 250*time.Millisecond, func(ctx context.Context, n int) error {
		if !d.room(d.reminders.Len(ctx)) {
			return nil
		}
		at := time.Now().Add(time.Duration(1+rand.N(8)) * time.Second)
		_, err := d.reminders.Schedule(ctx, "reminder #"+strconv.Itoa(n), at)
		return err
	})
	every(ctx, wg, 50*time.Millisecond, func(ctx context.Context, _ int) error {
		_, _, err := d.reminders.Pop(ctx, time.Second)
		return err
	})
	every(ctx, wg, 300*time.Millisecond, func(ctx context.Context, n int) error {
		if !d.room(d.nightly.Len(ctx)) {
			return nil
		}
		job := queues.FutureJob{Queue: "reports", Func: "report", Args: []byte(strconv.Itoa(n))}
		_, err := d.nightly.AddFutureJob(ctx, job, time.Now().Add(time.Duration(2+rand.N(10))*time.Second))
		return err
	})
	every(ctx, wg, 200*time.Millisecond, func(ctx context.Context, _ int) error {
		_, err := d.nightly.Step(ctx)
		return err
	})
	every(ctx, wg, 250*time.Millisecond, func(ctx context.Context, _ int) error {
		_, _, err := d.reports.Pop(ctx, time.Second)
		return err
	})
	every(ctx, wg, 200*time.Millisecond, func(ctx context.Context, n int) error {
		if ready, _, err := d.payments.Len(ctx); !d.room(ready, err) {
			return nil
		}
		_, err := d.payments.Push(ctx, "charge order "+strconv.Itoa(n))
		return err
	})
	every(ctx, wg, 180*time.Millisecond, func(ctx context.Context, _ int) error {
		dl, ok, err := d.payments.Pop(ctx, time.Second)
		if err != nil || !ok {
			return err
		}
		switch rand.N(5) {
		case 0: // a worker that dies: the lease expires and Reap requeues it
			return nil
		case 1: // a declined charge: retried, and dead after its third failure
			if st, err := d.payments.Stats(ctx); err == nil && st.Dead < d.max {
				_, err = d.payments.Nack(ctx, dl)
				return err
			}
		}
		_, err = d.payments.Ack(ctx, dl)
		return err
	})
	// Reap runs seldom, so that expired leases stay long enough to be requeued
	// from the page.
	every(ctx, wg, 20*time.Second, func(ctx context.Context, _ int) error {
		_, err := d.payments.Reap(ctx)
		return err
	})
	every(ctx, wg, 900*time.Millisecond, func(ctx context.Context, n int) error {
		if !d.room(d.tables.Len(ctx)) {
			return nil
		}
		err := d.tables.Add(ctx, "party "+strconv.Itoa(n), 1+rand.N(int64(6)))
		if errors.Is(err, queues.ErrDuplicate) {
			return nil
		}
		return err
	})
	every(ctx, wg, 700*time.Millisecond, func(ctx context.Context, _ int) error {
		_, _, err := d.tables.Seat(ctx, 2+rand.N(int64(5)), queues.Fits)
		return err
	})
}
