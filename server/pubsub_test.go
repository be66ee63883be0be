package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite"
	"github.com/zlite/zlite/pubsub"
)

// TestGoRedisPubSub runs go-redis's PubSub over the in-process Dialer, in RESP2
// and RESP3: subscription confirmations, messages from another go-redis client and
// from the embedding program's db.Publish, patterns, PING health checks, and
// unsubscribing.
func TestGoRedisPubSub(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("resp="+strconv.Itoa(proto), func(t *testing.T) {
			ctx := context.Background()
			db := zlite.New()
			dial := Dialer(db)
			sub := redis.NewClient(&redis.Options{Dialer: dial, Protocol: proto})
			pub := redis.NewClient(&redis.Options{Dialer: dial, Protocol: proto})
			defer sub.Close()
			defer pub.Close()
			ps := sub.Subscribe(ctx, "news")
			defer ps.Close()
			if m, err := ps.Receive(ctx); err != nil || fmt.Sprint(m) != "subscribe: news" {
				t.Fatalf("confirmation: %v, %v", m, err)
			}
			if err := ps.PSubscribe(ctx, "ev:*"); err != nil {
				t.Fatal(err)
			}
			if m, err := ps.Receive(ctx); err != nil || fmt.Sprint(m) != "psubscribe: ev:*" {
				t.Fatalf("pattern confirmation: %v, %v", m, err)
			}
			if err := ps.Ping(ctx, "hi"); err != nil {
				t.Fatal(err)
			}
			if m, err := ps.Receive(ctx); err != nil || fmt.Sprint(m) != "Pong<hi>" {
				t.Fatalf("ping: %v, %v", m, err)
			}
			if n, err := pub.Publish(ctx, "news", "from go-redis").Result(); err != nil || n != 1 {
				t.Fatalf("publish: %d, %v", n, err)
			}
			if n, err := db.Publish(ctx, "ev:1", "embedded"); err != nil || n != 1 {
				t.Fatalf("db.Publish: %d, %v", n, err)
			}
			for _, want := range []string{"Message<news: from go-redis>", "Message<ev:1: embedded>"} {
				m, err := ps.ReceiveMessage(ctx)
				if err != nil || fmt.Sprint(m) != want {
					t.Fatalf("message: %v, %v; want %s", m, err, want)
				}
			}
			if got, err := pub.PubSubNumSub(ctx, "news").Result(); err != nil || got["news"] != 1 {
				t.Fatalf("numsub: %v, %v", got, err)
			}
			if err := ps.Unsubscribe(ctx, "news"); err != nil {
				t.Fatal(err)
			}
			if m, err := ps.Receive(ctx); err != nil || fmt.Sprint(m) != "unsubscribe: news" {
				t.Fatalf("unsubscribe: %v, %v", m, err)
			}
			if n, _ := db.Publish(ctx, "news", "gone"); n != 0 {
				t.Fatalf("publish after unsubscribe reached %d", n)
			}
			// The server's hub is the embedding program's: its subscriber hears
			// the go-redis client.
			es := db.Subscribe(ctx, "back")
			defer es.Close()
			if n, err := pub.Publish(ctx, "back", "to the program").Result(); err != nil || n != 1 {
				t.Fatalf("publish to the program: %d, %v", n, err)
			}
			if m, err := es.Receive(ctx); err != nil || m.Payload != "to the program" {
				t.Fatalf("embedded receive: %v, %v", m, err)
			}
		})
	}
}

// TestPubSubLoad publishes from 4 connections to 100 subscribing connections (half
// on a channel, half on a pattern) over TCP, with -race, and checks that every
// subscriber gets every message, each publisher's in order.
func TestPubSubLoad(t *testing.T) {
	addr, _ := startServer(t)
	const subs, pubs, each = 100, 4, 250
	var ready, done sync.WaitGroup
	ready.Add(subs)
	errs := make(chan error, subs)
	for i := range subs {
		done.Add(1)
		go func() {
			defer done.Done()
			w := dial(t, addr)
			if i%2 == 0 {
				w.do("SUBSCRIBE", "load")
			} else {
				w.do("PSUBSCRIBE", "lo?d")
			}
			ready.Done()
			next := make([]int, pubs)
			for range pubs * each {
				r, err := w.read()
				if err != nil {
					errs <- err
					return
				}
				f := strings.Split(r, "\r\n")
				var p, j int
				fmt.Sscanf(f[len(f)-2], "%d:%d", &p, &j)
				if j != next[p] {
					errs <- fmt.Errorf("subscriber %d: publisher %d's message %d, expected %d", i, p, j, next[p])
					return
				}
				next[p]++
			}
		}()
	}
	ready.Wait()
	var wg sync.WaitGroup
	for p := range pubs {
		wg.Go(func() {
			w := dial(t, addr)
			for j := range each {
				if r := w.do("PUBLISH", "load", fmt.Sprintf("%d:%d", p, j)); r != ":100\r\n" {
					t.Errorf("publish: %q; want 100 receivers", r)
					return
				}
			}
		})
	}
	wg.Wait()
	done.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPubSubSlowSubscriber publishes to a subscriber that never reads, over TCP
// and over the in-process Dialer, beside one that reads: once what waits for the
// stalled one passes the hard limit the server closes its connection, so it
// cannot grow the server without bound, and the reader misses nothing.
func TestPubSubSlowSubscriber(t *testing.T) {
	for _, via := range []string{"tcp", "dialer"} {
		t.Run("via="+via, func(t *testing.T) {
			addr, srv := startServer(t)
			srv.hub.SetLimits(pubsub.Limits{Hard: 256 << 10})
			ctx := context.Background()
			switch via {
			case "tcp":
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				_ = nc.(*net.TCPConn).SetReadBuffer(4096)
				if _, err := nc.Write(encode("SUBSCRIBE", "slow")); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadAtLeast(nc, make([]byte, 64), len("*3\r\n$9\r\nsubscribe\r\n$4\r\nslow\r\n:1\r\n")); err != nil {
					t.Fatal(err)
				}
			case "dialer":
				rdb := redis.NewClient(&redis.Options{Dialer: srv.Dialer()})
				defer rdb.Close()
				ps := rdb.Subscribe(ctx, "slow")
				defer ps.Close()
				if _, err := ps.Receive(ctx); err != nil {
					t.Fatal(err)
				}
			}
			reader := srv.hub.Subscriber() // reads as it goes
			defer reader.Close()
			reader.Subscribe("slow")
			pub := dial(t, addr)
			payload := strings.Repeat("x", 1024)
			sent := 0
			for ; srv.hub.NumSub("slow") == 2; sent++ {
				if sent == 64<<10 { // 64 MiB
					t.Fatal("the stalled subscriber was never disconnected")
				}
				pub.send("PUBLISH", "slow", payload)
				if _, err := pub.read(); err != nil {
					t.Fatal(err)
				}
				if m, err := reader.Receive(ctx); err != nil || m.Payload != payload {
					t.Fatalf("the reading subscriber: %v", err)
				}
			}
			t.Logf("closed after %d KiB", sent)
			if n := srv.hub.NumSub("slow"); n != 1 {
				t.Fatalf("numsub %d; want 1, the reader", n)
			}
		})
	}
}
