package bench

import (
	"context"
	"fmt"
)

// memoryKind is one structure the memory rows build: elements [lo, hi) of n.
type memoryKind struct {
	id, title string
	build     func(ctx context.Context, s System, key string, n, lo, hi int) error
}

// memoryKinds are the one-key structures of the memory rows, built with freshly
// formatted strings (so an in-process system holds the only copy of what it stores).
var memoryKinds = []memoryKind{
	{"memory-zset", "sorted set memory", func(ctx context.Context, s System, key string, n, lo, hi int) error {
		zs := make([]Z, 0, hi-lo)
		for i := lo; i < hi; i++ {
			zs = append(zs, Z{Member: memberName(i), Score: scoreOf(i, n)})
		}
		return s.ZAddBulk(ctx, key, zs)
	}},
	{"memory-list", "list memory", func(ctx context.Context, s System, key string, n, lo, hi int) error {
		vs := make([]string, 0, hi-lo)
		for i := lo; i < hi; i++ {
			vs = append(vs, memberName(i))
		}
		return s.RPushBulk(ctx, key, vs)
	}},
}

// runMemory adds the bytes-per-element rows: a sorted set and a list of
// cfg.MemorySize elements, built on each system in turn.
func runMemory(ctx context.Context, cfg *Config, r *Report) error {
	n := cfg.MemorySize
	if n <= 0 {
		return nil
	}
	for _, kind := range memoryKinds {
		row := Row{Group: "memory", Workload: kind.title, ID: kind.id, N: n, Metric: BytesPerElem, Values: map[string]float64{}}
		for _, s := range cfg.Systems {
			key := "bench:" + s.Name() + ":" + kind.id
			cfg.progress("%-20s n=%-8d %-10s building", kind.id, n, s.Name())
			delta, ok, err := memoryDelta(ctx, s, func() error {
				for lo := 0; lo < n; lo += 100 * fillBatch {
					if err := kind.build(ctx, s, key, n, lo, min(lo+100*fillBatch, n)); err != nil {
						return err
					}
				}
				return nil
			}, func() error { return s.Del(ctx, key) })
			if err != nil {
				return fmt.Errorf("%s %s: %w", kind.id, s.Name(), err)
			}
			if !ok {
				continue
			}
			v := float64(delta) / float64(n)
			row.Values[s.Name()] = v
			cfg.progress("%-20s n=%-8d %-10s %s", kind.id, n, s.Name(), formatValue(BytesPerElem, v))
		}
		r.Rows = append(r.Rows, row)
		cfg.bar.finished()
	}
	return nil
}

// A freshener is a System whose memory, once keys are deleted, still depends on
// what they were, until it is made fresh. Without it a build would reuse what an
// earlier one left (in one run, miniredis's INCR counters built after as many
// strings measured 1.8 B/key where built first they took 222).
type freshener interface {
	// fresh makes the memory that the next build adds independent of the keys the
	// system held before; it may replace the keyspace, which must be empty.
	fresh(ctx context.Context) error
}

// memoryDelta runs del (so that nothing is left of an earlier build), makes s
// fresh (see [freshener]), then runs build, and returns the memory s gained by
// build; it runs del again afterwards. ok is false (and build does not run) when s
// does not measure its own memory.
func memoryDelta(ctx context.Context, s System, build, del func() error) (delta int64, ok bool, err error) {
	if err := del(); err != nil {
		return 0, false, err
	}
	if _, ok, err := s.Memory(ctx); err != nil || !ok {
		return 0, false, err
	}
	if f, ok := s.(freshener); ok {
		if err := f.fresh(ctx); err != nil {
			return 0, false, err
		}
	}
	before, _, err := s.Memory(ctx)
	if err != nil {
		return 0, false, err
	}
	if err := build(); err != nil {
		return 0, false, err
	}
	after, _, err := s.Memory(ctx)
	if err != nil {
		return 0, false, err
	}
	return after - before, true, del()
}
