package server

import (
	"context"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/zlite/zlite"
)

// MEMORY USAGE|STATS|DOCTOR|MALLOC-STATS|PURGE|HELP, from what zlite knows: the
// keyspaces' own accounting (zlite.DB.MemoryUsage, zlite.DB.Stats) and the Go
// runtime's heap figures where Redis reports its allocator's.

var memoryHelp = []string{
	"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
	"HELP",
	"    Prints this help.",
}

// cmdMemory is MEMORY's subcommands.
func cmdMemory(c *client, a []string) bool {
	switch strings.ToLower(a[1]) {
	case "help":
		c.w.array(len(memoryHelp))
		for _, l := range memoryHelp {
			c.w.status(l)
		}
	case "usage":
		for j := 3; j < len(a); j++ {
			if !strings.EqualFold(a[j], "samples") || j+1 >= len(a) {
				c.w.errorReply(errSyntax)
				return false
			}
			n, ok := parseLongLong(a[j+1])
			if !ok {
				c.w.errorReply(zlite.ErrNotInteger.Error())
				return false
			}
			if n < 0 {
				c.w.errorReply(errSyntax)
				return false
			}
			j++ // zlite's sizes are exact: the count changes nothing
		}
		n, ok, err := c.srv.DB(c.db).MemoryUsage(context.Background(), a[2])
		switch {
		case err != nil:
			c.w.errorReply("ERR " + err.Error())
		case !ok:
			c.w.null(false)
		default:
			c.w.integer(n)
		}
	case "stats":
		c.srv.memoryStats(c)
	case "doctor":
		// Redis's two texts for no issue found: its detector calls an instance
		// under 5 MB empty; zlite reports none of Redis's other issues.
		if m, _ := c.srv.memSample(); m.HeapAlloc < 5<<20 {
			c.w.verbatim("Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n")
		} else {
			c.w.verbatim("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n")
		}
	case "malloc-stats":
		c.w.bulk("Stats not supported for the current allocator")
	case "purge":
		debug.FreeOSMemory()
		c.w.status("OK")
	}
	return false
}

// memSample reads the Go runtime's figures and updates the peak.
func (s *Server) memSample() (m runtime.MemStats, peak uint64) {
	runtime.ReadMemStats(&m)
	for {
		p := s.memPeak.Load()
		if m.HeapAlloc <= p {
			return m, p
		}
		if s.memPeak.CompareAndSwap(p, m.HeapAlloc) {
			return m, m.HeapAlloc
		}
	}
}

// memoryStats writes MEMORY STATS: Redis's fields in its order, the allocator's
// as the Go heap's (allocated HeapAlloc, active HeapInuse, resident Sys), the
// keyspaces' overhead as their keys' entries (zlite.DB.Stats: O(keys)).
func (s *Server) memoryStats(c *client) {
	m, peak := s.memSample()
	type dbStat struct {
		i           int
		keys, bytes int64
		expires     int64
	}
	var dbs []dbStat
	var keys, dataset int64
	for i := range NumDBs {
		st := s.DB(i).Stats()
		if st.Keys == 0 {
			continue
		}
		var b int64
		for _, ts := range st.Types {
			b += ts.Bytes
		}
		dbs = append(dbs, dbStat{i, st.Keys, b, st.Expires})
		keys += st.Keys
		dataset += b
	}
	total := int64(m.HeapAlloc)
	startup := int64(s.memStartup)
	overhead := startup
	for _, d := range dbs {
		overhead += d.keys*keyEntryBytes + d.expires*keyEntryBytes
	}
	if dataset > total-overhead && total > overhead {
		dataset = total - overhead
	}
	ratio := func(a, b uint64) string {
		if b == 0 {
			return "0"
		}
		return strconv.FormatFloat(float64(a)/float64(b), 'g', 17, 64)
	}
	c.w.mapHeader(25 + len(dbs))
	num := func(k string, v int64) { c.w.bulk(k); c.w.integer(v) }
	dbl := func(k, v string) { c.w.bulk(k); c.w.double(v) }
	num("peak.allocated", int64(peak))
	num("total.allocated", total)
	num("startup.allocated", startup)
	num("replication.backlog", 0)
	num("clients.slaves", 0)
	num("clients.normal", 0)
	num("cluster.links", 0)
	num("aof.buffer", 0)
	num("lua.caches", 0)
	num("functions.caches", 0)
	for _, d := range dbs {
		c.w.bulk("db." + strconv.Itoa(d.i))
		c.w.mapHeader(3)
		num("overhead.hashtable.main", d.keys*keyEntryBytes)
		num("overhead.hashtable.expires", d.expires*keyEntryBytes)
		num("overhead.hashtable.slot-to-keys", 0)
	}
	num("overhead.total", overhead)
	num("keys.count", keys)
	perKey := int64(0)
	if keys > 0 {
		perKey = (total - startup) / keys
	}
	num("keys.bytes-per-key", perKey)
	num("dataset.bytes", dataset)
	dbl("dataset.percentage", ratio(uint64(max(dataset, 0))*100, uint64(max(total-startup, 1))))
	dbl("peak.percentage", ratio(uint64(total)*100, peak))
	num("allocator.allocated", int64(m.HeapAlloc))
	num("allocator.active", int64(m.HeapInuse))
	num("allocator.resident", int64(m.Sys))
	dbl("allocator-fragmentation.ratio", ratio(m.HeapInuse, m.HeapAlloc))
	num("allocator-fragmentation.bytes", int64(m.HeapInuse)-int64(m.HeapAlloc))
	dbl("allocator-rss.ratio", ratio(m.Sys, m.HeapInuse))
	num("allocator-rss.bytes", int64(m.Sys)-int64(m.HeapInuse))
	dbl("rss-overhead.ratio", "1")
	num("rss-overhead.bytes", 0)
	dbl("fragmentation", ratio(m.Sys, m.HeapAlloc))
	num("fragmentation.bytes", int64(m.Sys)-int64(m.HeapAlloc))
}

// keyEntryBytes is a key's entry in a keyspace's table, counted as Redis counts
// its hash tables' overhead.
const keyEntryBytes = 24
