package persist

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkAppendWait is one record of 32 bytes appended and waited for, by 1, 4 or
// 16 concurrent writers, under a lock they share (lock=shared, as one keyspace lock
// would) or each under a lock of its own (lock=own, as the keyspace's writers of
// different shards do). fsyncs/op below 1 is group commit at work. Under EverySecond
// and Never, path=mmap is the memory-mapped log (where the platform has one) and
// path=write the write(2) path it replaces.
func BenchmarkAppendWait(b *testing.B) {
	payload := []byte("ZADD\x00board\x001234\x00member:0000042")
	for _, p := range []SyncPolicy{Always, EverySecond, Never} {
		for _, writers := range []int{1, 4, 16} {
			for _, path := range []string{"write", "mmap"} {
				for _, lock := range []string{"shared", "own"} {
					if path == "mmap" && (p == Always || defaultMapper == nil) || lock == "own" && writers == 1 {
						continue
					}
					b.Run(fmt.Sprintf("op=append/sync=%s/writers=%d/path=%s/lock=%s", p, writers, path, lock), func(b *testing.B) {
						opts := []Option{WithSync(p)}
						if path == "write" {
							opts = append(opts, withMapper(nil))
						}
						s, _ := openT(b, b.TempDir(), opts...)
						var mu sync.Mutex
						var next atomic.Int64
						b.ReportAllocs()
						b.ResetTimer()
						var wg sync.WaitGroup
						for range writers {
							wg.Add(1)
							go func() {
								defer wg.Done()
								mu := &mu
								if lock == "own" {
									mu = new(sync.Mutex)
								}
								for next.Add(1) <= int64(b.N) {
									mu.Lock()
									pos, err := s.Append(payload)
									mu.Unlock()
									if err == nil {
										err = s.Wait(pos)
									}
									if err != nil {
										b.Error(err)
										return
									}
								}
							}()
						}
						wg.Wait()
						b.StopTimer()
						st := s.Stats()
						b.ReportMetric(float64(st.Fsyncs)/float64(b.N), "fsyncs/op")
						b.ReportMetric(float64(st.Writes)/float64(b.N), "writes/op")
						if err := s.Close(); err != nil {
							b.Fatal(err)
						}
					})
				}
			}
		}
	}
}

// countReplayer counts what Open hands it.
type countReplayer struct{ keys, elems, records int }

func (c *countReplayer) LoadKey(k *Key) error {
	c.keys++
	for range k.ZSetEntries() {
		c.elems++
	}
	for range k.ListItems() {
		c.elems++
	}
	return nil
}

func (c *countReplayer) Replay([]byte) error { c.records++; return nil }

// BenchmarkLoad is Open (and Close) of a log of 1e6 small records.
func BenchmarkLoad(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	s, _ := openT(b, dir, WithSync(Never))
	var pos Pos
	for i := range n {
		pos, _ = s.Append(fmt.Appendf(nil, "ZADD\x00board\x00%d\x00member:%07d", i, i))
		if i%1000 == 999 {
			s.Wait(pos)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, logName(1)))
	b.Run("op=load/records=1000000", func(b *testing.B) {
		b.SetBytes(fi.Size())
		for b.Loop() {
			var c countReplayer
			s, err := Open(dir, &c, WithSync(Never))
			if err != nil || c.records != n {
				b.Fatalf("Open = %v, %d records", err, c.records)
			}
			s.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/record")
	})
}

// BenchmarkSnapshot writes (and then loads) a snapshot of one sorted set of 1e6
// entries with integral scores and one list of 1e6 items.
func BenchmarkSnapshot(b *testing.B) {
	const n = 1_000_000
	members := make([]string, n)
	for i := range members {
		members[i] = fmt.Sprintf("member:%07d", i)
	}
	zs := func(yield func(string, float64) bool) {
		for i, m := range members {
			if !yield(m, float64(i)) {
				return
			}
		}
	}
	dir := b.TempDir()
	s, _ := openT(b, dir, WithSync(Never))
	defer s.Close()
	b.Run("op=snapshot-write/elems=2000000", func(b *testing.B) {
		var size int64
		for b.Loop() {
			w, err := s.StartSnapshot()
			if err != nil {
				b.Fatal(err)
			}
			w.WriteZSet("board", 0, zs)
			w.WriteList("jobs", 0, slices.Values(members))
			if err := w.Commit(); err != nil {
				b.Fatal(err)
			}
			fi, _ := os.Stat(filepath.Join(dir, snapName(w.gen)))
			size = fi.Size()
		}
		b.SetBytes(size)
		b.ReportMetric(float64(size)/(2*n), "B/elem")
	})
	b.Run("op=snapshot-load/elems=2000000", func(b *testing.B) {
		s.Close()
		for b.Loop() {
			var c countReplayer
			s2, err := Open(dir, &c)
			if err != nil || c.elems != 2*n {
				b.Fatalf("Open = %v, %d elements", err, c.elems)
			}
			s2.Close()
		}
	})
}
