package keytable

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTag(t *testing.T) {
	// Redis Cluster's rules (cluster.c keyHashSlot).
	tests := []struct{ key, tag string }{
		{"plain", "plain"},
		{"{user1000}.following", "user1000"},
		{"{user1000}.followers", "user1000"},
		{"foo{}{bar}", "foo{}{bar}"}, // an empty tag: the whole key
		{"foo{{bar}}zap", "{bar"},
		{"foo{bar}{zap}", "bar"},
		{"no{close", "no{close"},
		{"}{x}", "x"},
		{"", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.tag, Tag(tt.key), "Tag(%q)", tt.key)
	}
}

// TestTagHash checks the one-load path of TagHash against Tag and strHash
// at every key length it treats apart (0, 1-3, 4-7, 8-16, 17-32, longer), with a brace at
// each position and next to bytes one above and below it, and with a tag.
func TestTagHash(t *testing.T) {
	check := func(key string) {
		tag := Tag(key)
		h, whole := TagHash(key)
		require.Equal(t, strHash(tag), h, "TagHash(%q)", key)
		require.Equal(t, tag == key, whole, "TagHash(%q)", key)
		if whole {
			require.Equal(t, h>>32, Hash(key), "TagHash(%q) and Hash", key)
		}
	}
	for n := range 40 {
		for _, fill := range []byte{'a', '{' - 1, '{' + 1, '}', 0, 0xff} {
			key := bytes.Repeat([]byte{fill}, n)
			check(string(key))
			for i := range n {
				k := slices.Clone(key)
				k[i] = '{'
				check(string(k))
				if i+2 < n {
					k[n-1] = '}'
					check(string(k))
				}
			}
		}
	}
}

// TestStrHashSpread checks that strHash spreads keys that differ in a few bytes (the
// usual "user:%08d") evenly over the shards (its low bits) and the key-table slots
// (its high 32 bits), for short keys (mixShort), middling ones (mixMid) and long ones
// (maphash).
func TestStrHashSpread(t *testing.T) {
	for _, format := range []string{"u:%d", "user:%08d", "%016d", "tenant:%08d:queue",
		"bench:zlite:z:user:%08d", "%032d", "%017d", "session:%08d:tenant:00000001:queue"} {
		const n, shards = 64_000, 64
		var per [shards]int
		high := make(map[uint32]bool, n)
		for i := range n {
			h := strHash(fmt.Sprintf(format, i))
			per[h%shards]++
			high[uint32(h>>32)] = true
		}
		for s, c := range per {
			// 1000 expected per shard, with a standard deviation of about 31.
			require.InDelta(t, n/shards, c, 200, "%s: shard %d holds %d keys", format, s, c)
		}
		// n²/2³³ ≈ 0.5 collisions expected among random 32-bit values.
		require.GreaterOrEqual(t, len(high), n-8, "%s: distinct slot hashes", format)
	}
}
