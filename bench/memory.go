package bench

import (
	"context"
	"fmt"
)

// runMemory adds the bytes-per-element rows: a sorted set and a list of
// cfg.MemorySize elements, built on each system in turn with freshly formatted
// strings (so an in-process system holds the only copy of what it stores).
func runMemory(ctx context.Context, cfg *Config, r *Report) error {
	n := cfg.MemorySize
	if n <= 0 {
		return nil
	}
	kinds := []struct {
		id, title string
		build     func(s System, key string, lo, hi int) error
	}{
		{"memory-zset", "sorted set memory", func(s System, key string, lo, hi int) error {
			zs := make([]Z, 0, hi-lo)
			for i := lo; i < hi; i++ {
				zs = append(zs, Z{Member: memberName(i), Score: scoreOf(i, n)})
			}
			return s.ZAddBulk(ctx, key, zs)
		}},
		{"memory-list", "list memory", func(s System, key string, lo, hi int) error {
			vs := make([]string, 0, hi-lo)
			for i := lo; i < hi; i++ {
				vs = append(vs, memberName(i))
			}
			return s.RPushBulk(ctx, key, vs)
		}},
	}
	for _, kind := range kinds {
		row := Row{Group: "memory", Workload: kind.title, ID: kind.id, N: n, Metric: BytesPerElem, Values: map[string]float64{}}
		for _, s := range cfg.Systems {
			key := "bench:" + s.Name() + ":" + kind.id
			if err := s.Del(ctx, key); err != nil {
				return err
			}
			before, ok, err := s.Memory(ctx)
			if err != nil {
				return fmt.Errorf("%s %s: %w", kind.id, s.Name(), err)
			}
			if !ok {
				continue
			}
			cfg.progress("%-20s n=%-8d %-10s building", kind.id, n, s.Name())
			for lo := 0; lo < n; lo += 100 * fillBatch {
				if err := kind.build(s, key, lo, min(lo+100*fillBatch, n)); err != nil {
					return fmt.Errorf("%s %s: %w", kind.id, s.Name(), err)
				}
			}
			after, _, err := s.Memory(ctx)
			if err != nil {
				return fmt.Errorf("%s %s: %w", kind.id, s.Name(), err)
			}
			if err := s.Del(ctx, key); err != nil {
				return err
			}
			v := float64(after-before) / float64(n)
			row.Values[s.Name()] = v
			cfg.progress("%-20s n=%-8d %-10s %s", kind.id, n, s.Name(), formatValue(BytesPerElem, v))
		}
		r.Rows = append(r.Rows, row)
	}
	return nil
}
