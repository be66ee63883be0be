// Command respbench prints the RESP benchmark of package respbench as a Markdown
// table: redis-benchmark on redis-server and on a zlite server with the same flags,
// and go-redis through the in-process Dialer against go-redis on miniredis.
//
//	go run -C bench ./respbench/cmd/respbench -n 200000 -P 1,64 -c 1,50 -rounds 5
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite/bench/respbench"
	"github.com/zlite/zlite/internal/redistest"
)

func main() {
	var cfg respbench.Config
	flag.StringVar(&cfg.Tests, "t", "zadd,zpopmin,lpush,rpop,set,get,incr,hset,sadd,mset", "redis-benchmark tests")
	flag.IntVar(&cfg.Requests, "n", 200000, "redis-benchmark requests per run")
	flag.IntVar(&cfg.Random, "r", 100000, "redis-benchmark random keyspace size")
	pipes := flag.String("P", "1,64", "pipeline depths")
	clients := flag.String("c", "1,50", "client counts")
	flag.DurationVar(&cfg.Duration, "d", 200*time.Millisecond, "timed work per go-redis run")
	flag.IntVar(&cfg.Rounds, "rounds", 5, "runs per figure; the median is shown with the range")
	flag.Parse()
	cfg.Pipelines, cfg.Clients = ints(*pipes), ints(*clients)
	start := time.Now()
	rep, err := respbench.Run(context.Background(), cfg)
	redistest.Stop()
	fmt.Print(rep.Markdown())
	fmt.Printf("\n(took %v)\n", time.Since(start).Round(time.Second))
	if err != nil {
		fmt.Fprintln(os.Stderr, "respbench:", err)
		os.Exit(1)
	}
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}
