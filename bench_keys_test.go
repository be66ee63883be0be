package zlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/keytable"
	"github.com/zlite/zlite/internal/serverapi"

	"github.com/zlite/zlite/list"
)

// Many small keys: memory per key and per element, the forced-GC time with
// the keyspace alive, and the speed of the core commands on a random key among many.
//
//	go test -run '^$' -bench 'BenchmarkManyKeys' -benchtime 1x -count 3 .
//	go test -run '^$' -bench 'BenchmarkManyKeysOps' -benchtime 200ms -count 3 .
//
// Keys are user:%08d, members member:%07d (14 bytes), scores 0..n-1 (score=int) or
// 0.5..n-0.5 (score=frac). B/key and B/elem are the growth of the Go heap in use after
// a GC, everything included (key table, key and member bytes, values), divided by
// the keys or the elements; gc-ns is the best of three forced runtime.GC calls with the
// keyspace alive, and gc-cpu-ns the collector's mean CPU time in them (the runtime's
// estimate, /cpu/classes/gc/total:cpu-seconds).

func benchKey(i int) string    { return fmt.Sprintf("user:%08d", i) }
func benchMember(i int) string { return fmt.Sprintf("member:%07d", i) }

// heapInUse returns the Go heap in use after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// gcTime returns the best of three forced collections, and the mean CPU time the
// runtime counts for the collector in each (its own estimate, from
// /cpu/classes/gc/total:cpu-seconds: less sensitive than wall time to the cores a busy
// machine leaves the benchmark).
func gcTime() (best, cpu time.Duration) {
	best = time.Duration(1<<63 - 1)
	gcCPU := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(gcCPU)
	before := gcCPU[0].Value.Float64()
	for range 3 {
		t := time.Now()
		runtime.GC()
		best = min(best, time.Since(t))
	}
	metrics.Read(gcCPU)
	return best, time.Duration((gcCPU[0].Value.Float64() - before) / 3 * 1e9)
}

// manyShape is one memory benchmark: keys keys of n elements each.
type manyShape struct {
	kind    string // "zset", "list", "hash", "set", "intset", "string" (16-byte values, SET) or "counter" (INCR)
	keys, n int
	frac    bool // fractional scores
	ttl     bool // every key gets a TTL (EXPIRE key 3600)
}

func (s manyShape) name() string {
	score := ""
	if s.kind == "zset" {
		score = "/score=int"
		if s.frac {
			score = "/score=frac"
		}
	}
	ttl := ""
	if s.ttl {
		ttl = "/ttl=1h"
	}
	return fmt.Sprintf("op=mem/type=%s/keys=%d/n=%d%s%s/impl=zlite", s.kind, s.keys, s.n, score, ttl)
}

// build fills db with the shape, one command per element as a client would. Key
// names are made on the fly, so that the benchmark keeps no strings of its own alive
// while the heap and the GC are measured.
func (s manyShape) build(db *DB, members []string) {
	ctx := context.Background()
	for k := range s.keys {
		key := benchKey(k)
		switch s.kind {
		case "string":
			db.Set(ctx, key, "value-of-16-byte", 0)
			continue
		case "counter":
			db.Incr(ctx, key)
			continue
		}
		for i := range s.n {
			switch s.kind {
			case "list":
				db.RPush(ctx, key, members[i])
				continue
			case "hash":
				db.HSet(ctx, key, members[i], "value-"+strconv.Itoa(i))
				continue
			case "set":
				db.SAdd(ctx, key, members[i])
				continue
			case "intset":
				db.SAdd(ctx, key, strconv.Itoa(i*1000))
				continue
			}
			score := float64(i)
			if s.frac {
				score += 0.5
			}
			db.ZAdd(ctx, key, Z{Member: members[i], Score: score})
		}
		if s.ttl {
			db.Expire(ctx, key, time.Hour)
		}
	}
}

func BenchmarkManyKeys(b *testing.B) {
	shapes := []manyShape{
		{kind: "zset", keys: 100_000, n: 1},
		{kind: "zset", keys: 100_000, n: 1, ttl: true},
		{kind: "zset", keys: 100_000, n: 10},
		{kind: "zset", keys: 100_000, n: 10, frac: true},
		{kind: "zset", keys: 10_000, n: 100},
		{kind: "zset", keys: 10_000, n: 100, frac: true},
		{kind: "list", keys: 100_000, n: 1},
		{kind: "list", keys: 100_000, n: 1, ttl: true},
		{kind: "list", keys: 100_000, n: 10},
		{kind: "string", keys: 1_000_000, n: 1},
		{kind: "counter", keys: 1_000_000, n: 1},
		{kind: "hash", keys: 100_000, n: 10},
		{kind: "set", keys: 100_000, n: 10},
		{kind: "intset", keys: 100_000, n: 10},
		{kind: "hash", keys: 1, n: 1_000_000},
		{kind: "set", keys: 1, n: 1_000_000},
	}
	for _, s := range shapes {
		b.Run(s.name(), func(b *testing.B) {
			members := make([]string, s.n)
			for i := range members {
				members[i] = benchMember(i)
			}
			var perKey, perElem float64
			var gc, gcCPU time.Duration
			for b.Loop() {
				before := heapInUse()
				db := New()
				s.build(db, members)
				after := heapInUse()
				gc, gcCPU = gcTime()
				perKey = float64(after-before) / float64(s.keys)
				perElem = perKey / float64(s.n)
				runtime.KeepAlive(db)
			}
			b.ReportMetric(perKey, "B/key")
			b.ReportMetric(perElem, "B/elem")
			b.ReportMetric(float64(gc.Nanoseconds()), "gc-ns")
			b.ReportMetric(float64(gcCPU.Nanoseconds()), "gc-cpu-ns")
		})
	}
}

// manyKeysDB is a keyspace of 100k sorted sets and 100k lists of 10 elements each,
// built once for BenchmarkManyKeysOps.
type manyKeysDB struct {
	db      *DB
	zkeys   []string
	lkeys   []string
	members []string
	pick    []uint32 // random key indexes, cycled through
}

const (
	manyKeys = 100_000
	manyN    = 10
)

var manyDB *manyKeysDB

func getManyKeysDB() *manyKeysDB {
	if manyDB != nil {
		return manyDB
	}
	m := &manyKeysDB{db: New()}
	for i := range manyKeys {
		m.zkeys = append(m.zkeys, "z"+benchKey(i))
		m.lkeys = append(m.lkeys, "l"+benchKey(i))
	}
	for i := range manyN {
		m.members = append(m.members, benchMember(i))
	}
	ctx := context.Background()
	for _, k := range m.zkeys {
		for i, mb := range m.members {
			m.db.ZAdd(ctx, k, Z{Member: mb, Score: float64(i)})
		}
	}
	for _, k := range m.lkeys {
		m.db.RPush(ctx, k, m.members...)
	}
	r := rand.New(rand.NewPCG(1, 2))
	m.pick = make([]uint32, 1<<16)
	for i := range m.pick {
		m.pick[i] = uint32(r.IntN(manyKeys))
	}
	manyDB = m
	return m
}

func BenchmarkManyKeysOps(b *testing.B) {
	ctx := context.Background()
	m := getManyKeysDB()
	db := m.db
	mask := len(m.pick) - 1
	name := func(op string) string {
		return fmt.Sprintf("op=%s/keys=%d/n=%d/impl=zlite", op, manyKeys, manyN)
	}
	ops := []struct {
		op string
		fn func(i int)
	}{
		{"ZADD", func(i int) {
			// An update of an existing member: the sets keep their size.
			db.ZAdd(ctx, m.zkeys[m.pick[i&mask]], Z{Member: m.members[i%manyN], Score: float64(i % 97)})
		}},
		{"ZSCORE", func(i int) { db.ZScore(ctx, m.zkeys[m.pick[i&mask]], m.members[i%manyN]) }},
		{"ZRANK", func(i int) { db.ZRank(ctx, m.zkeys[m.pick[i&mask]], m.members[i%manyN]) }},
		{"ZRANGE", func(i int) { db.ZRange(ctx, m.zkeys[m.pick[i&mask]], 0, -1) }},
		{"ZPOPMIN+ZADD", func(i int) {
			k := m.zkeys[m.pick[i&mask]]
			z, _ := db.ZPopMin(ctx, k)
			db.ZAdd(ctx, k, z...)
		}},
		{"LPUSH+RPOP", func(i int) {
			k := m.lkeys[m.pick[i&mask]]
			db.LPush(ctx, k, m.members[i%manyN])
			db.RPop(ctx, k)
		}},
	}
	for _, o := range ops {
		b.Run(name(o.op), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				o.fn(i)
				i++
			}
		})
	}
	// The same commands as words, pipelined 64 at a time through DoPipelined (as the
	// RESP server runs a client's pipeline): ns/cmd is the time per command.
	const depth = 64
	piped := []struct {
		op  string
		cmd func(i int) []string
	}{
		{"ZADD", func(i int) []string {
			return []string{"ZADD", m.zkeys[m.pick[i&mask]], fmt.Sprint(i % 97), m.members[i%manyN]}
		}},
		{"ZSCORE", func(i int) []string { return []string{"ZSCORE", m.zkeys[m.pick[i&mask]], m.members[i%manyN]} }},
		{"ZRANK", func(i int) []string { return []string{"ZRANK", m.zkeys[m.pick[i&mask]], m.members[i%manyN]} }},
		{"LPUSH+RPOP", func(i int) []string {
			if i%2 == 0 {
				return []string{"LPUSH", m.lkeys[m.pick[i/2&mask]], m.members[i%manyN]}
			}
			return []string{"RPOP", m.lkeys[m.pick[i/2&mask]]}
		}},
	}
	for _, o := range piped {
		cmds := make([][]string, len(m.pick))
		for i := range cmds {
			cmds[i] = o.cmd(i)
		}
		results := make([]serverapi.Result, depth)
		b.Run(fmt.Sprintf("op=%s/pipeline=%d/keys=%d/n=%d/impl=zlite", o.op, depth, manyKeys, manyN), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				doPipelined(ctx, db, cmds[i:i+depth], results, nil)
				if i += depth; i == len(cmds) {
					i = 0
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*depth), "ns/cmd")
		})
	}
}

// BenchmarkKeyTable measures what the key table costs per key, beyond the values, and
// the speed of a lookup of a random key:
// impl=zlite is keytable.Table; impl=map is the layout it replaced (a map from the key to
// its value and SCAN sequence number, and a creation-ordered slice of sequence
// numbers and key strings for SCAN), rebuilt here for the comparison. In the map every
// key holds the same value, so only the table is counted; in keytable.Table every key holds
// an empty sorted set, whose 24-byte header lives in the table (keytable.Table.sets) and is
// counted with it.
func BenchmarkKeyTable(b *testing.B) {
	type entry struct {
		val any
		seq uint64
	}
	type slot struct {
		seq  uint64
		key  string
		live bool
	}
	val := list.New()
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		impls := []struct {
			name  string
			build func() any
		}{
			{"zlite", func() any {
				var t keytable.Table
				for i := range n {
					t.AddZSet(benchKey(i))
				}
				return &t
			}},
			{"map", func() any {
				m := map[string]entry{}
				var order []slot
				for i := range n {
					k := benchKey(i)
					m[k] = entry{val: val, seq: uint64(i + 1)}
					order = append(order, slot{seq: uint64(i + 1), key: k, live: true})
				}
				return []any{m, order}
			}},
		}
		// Lookups of random present keys, through the same two layouts.
		r := rand.New(rand.NewPCG(3, 4))
		pick := make([]string, 1<<16)
		for i := range pick {
			pick[i] = benchKey(r.IntN(n))
		}
		lookups := []struct {
			name string
			get  func(built any) func(string) any
		}{
			{"zlite", func(built any) func(string) any { return built.(*keytable.Table).Get }},
			{"map", func(built any) func(string) any {
				m := built.([]any)[0].(map[string]entry)
				return func(k string) any { return m[k].val }
			}},
		}
		for i, lk := range lookups {
			b.Run(fmt.Sprintf("op=get/keys=%d/impl=%s", n, lk.name), func(b *testing.B) {
				get := lk.get(impls[i].build())
				j := 0
				for b.Loop() {
					if get(pick[j&(len(pick)-1)]) == nil {
						b.Fatal("key missing")
					}
					j++
				}
			})
		}
		for _, im := range impls {
			b.Run(fmt.Sprintf("op=mem/keys=%d/impl=%s", n, im.name), func(b *testing.B) {
				var perKey float64
				var gc time.Duration
				for b.Loop() {
					before := heapInUse()
					t := im.build()
					perKey = float64(heapInUse()-before) / float64(n)
					gc, _ = gcTime()
					runtime.KeepAlive(t)
				}
				b.ReportMetric(perKey, "B/key")
				b.ReportMetric(float64(gc.Nanoseconds()), "gc-ns")
			})
		}
	}
}

// kvKeysDB is a keyspace of 1M strings (the odd ones counters) and 100k hashes and sets
// of 10, built once for BenchmarkManyKeysKV.
type kvKeysDB struct {
	db                 *DB
	strs, hashes, sets []string
	fields             []string
	pickStr, pickSmall []uint32
}

var kvDB *kvKeysDB

func getKVKeysDB() *kvKeysDB {
	if kvDB != nil {
		return kvDB
	}
	ctx := context.Background()
	m := &kvKeysDB{db: New()}
	for i := range 1_000_000 {
		m.strs = append(m.strs, "s"+benchKey(i))
		if i%2 == 0 {
			m.db.Set(ctx, m.strs[i], "value-of-16-byte", 0)
		} else {
			m.db.Incr(ctx, m.strs[i]) // the odd keys are counters
		}
	}
	for i := range manyN {
		m.fields = append(m.fields, benchMember(i))
	}
	for i := range manyKeys {
		m.hashes = append(m.hashes, "h"+benchKey(i))
		m.sets = append(m.sets, "t"+benchKey(i))
		for _, f := range m.fields {
			m.db.HSet(ctx, m.hashes[i], f, "value")
			m.db.SAdd(ctx, m.sets[i], f)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	m.pickStr, m.pickSmall = make([]uint32, 1<<16), make([]uint32, 1<<16)
	for i := range m.pickStr {
		m.pickStr[i], m.pickSmall[i] = uint32(r.IntN(len(m.strs))), uint32(r.IntN(manyKeys))
	}
	kvDB = m
	return m
}

// BenchmarkManyKeysKV times the string, hash and set commands on random keys among
// 1M strings and 100k hashes and sets of 10, through the typed methods.
func BenchmarkManyKeysKV(b *testing.B) {
	ctx := context.Background()
	m := getKVKeysDB()
	db := m.db
	mask := len(m.pickStr) - 1
	mget := make([]string, 10)
	ops := []struct {
		op string
		fn func(i int)
	}{
		{"GET", func(i int) { db.Get(ctx, m.strs[m.pickStr[i&mask]]) }},
		{"SET", func(i int) { db.Set(ctx, m.strs[m.pickStr[i&mask]&^1], "value-of-16-byte", 0) }},
		{"INCR", func(i int) {
			if _, err := db.Incr(ctx, m.strs[m.pickStr[i&mask]|1]); err != nil {
				b.Fatal(err)
			}
		}},
		{"MGET10", func(i int) {
			for j := range mget {
				mget[j] = m.strs[m.pickStr[(i*10+j)&mask]]
			}
			db.MGet(ctx, mget...)
		}},
		{"HSET", func(i int) { db.HSet(ctx, m.hashes[m.pickSmall[i&mask]], m.fields[i%manyN], "value") }},
		{"HGET", func(i int) { db.HGet(ctx, m.hashes[m.pickSmall[i&mask]], m.fields[i%manyN]) }},
		{"SADD", func(i int) { db.SAdd(ctx, m.sets[m.pickSmall[i&mask]], m.fields[i%manyN]) }},
		{"SISMEMBER", func(i int) { db.SIsMember(ctx, m.sets[m.pickSmall[i&mask]], m.fields[i%manyN]) }},
	}
	for _, o := range ops {
		b.Run(fmt.Sprintf("op=%s/impl=zlite", o.op), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				o.fn(i)
				i++
			}
		})
	}
}
