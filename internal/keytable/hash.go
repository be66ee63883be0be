package keytable

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"strings"
	"unsafe"
)

// Keys are hashed once per command (TagHash) and the hash serves both the shard and
// the slot in its key table. A key of up to 16 bytes, the common kind, is hashed
// by mixShort, a seeded multiply-and-fold in the manner of wyhash (two 64×64→128-bit
// products over two words that between them hold every byte of the key), one of 17
// to 32 bytes (prefixed names: "tenant:00001234:queue", "bench:zlite:z:user:00012345")
// by mixMid, three products over four words, a longer one by hash/maphash.
// maphash.String is a call with its own set-up and AES rounds; the mixes are a few
// multiplications in line, and the words they load also serve TagHash's search for a
// '{'. The keys of the key table are the caller's (a server's clients'), so the mixes are seeded per process (hashK, from maphash's
// random seed): which keys collide cannot be known in advance, as with maphash.

// keySeed seeds the hashes of keys longer than 32 bytes, and hashK, the keys of
// mixShort and mixMid.
var keySeed = maphash.MakeSeed()

var hashK = func() (k [6]uint64) {
	for i := range k {
		k[i] = maphash.String(keySeed, string(rune('a'+i))) | 1
	}
	return k
}()

// strHash returns the hash of s: its low bits choose the shard of a hash tag, its
// high 32 a key's slot in its shard's key table. O(len(s)).
func strHash(s string) uint64 {
	switch n := len(s); {
	case n <= 16:
		a, b := shortWords(s)
		return mixShort(a, b, n)
	case n <= 32:
		a, b, c, d := midWords(s)
		return mixMid(a, b, c, d, n)
	}
	return maphash.String(keySeed, s)
}

// shortWords returns two words that hold every byte of s, which has at most 16: for
// each length, a different s gives a different pair. Bytes of the words beyond s are
// zero.
func shortWords(s string) (a, b uint64) {
	switch n := len(s); {
	case n >= 8:
		return loadLE64(s, 0), loadLE64(s, n-8)
	case n >= 4:
		return uint64(loadLE32(s, 0)), uint64(loadLE32(s, n-4))
	case n > 0:
		x := uint64(s[0]) | uint64(s[n>>1])<<8 | uint64(s[n-1])<<16
		return x, x
	}
	return 0, 0
}

// mixShort returns the hash of the key of n bytes whose words are a and b.
func mixShort(a, b uint64, n int) uint64 {
	hi, lo := bits.Mul64(a^hashK[0], b^hashK[1])
	hi, lo = bits.Mul64(hi^lo^hashK[2], uint64(n)^hashK[3])
	return hi ^ lo
}

// midWords returns four words that hold every byte of s, which has 17 to 32: its
// first 16 bytes and its last 16, which overlap unless s has 32. For each length, a
// different s gives different words.
func midWords(s string) (a, b, c, d uint64) {
	n := len(s)
	return loadLE64(s, 0), loadLE64(s, 8), loadLE64(s, n-16), loadLE64(s, n-8)
}

// mixMid returns the hash of the key of n bytes whose words are a, b, c and d: each
// pair folded by a product, as in mixShort, and the two folds by a third.
func mixMid(a, b, c, d uint64, n int) uint64 {
	hi, lo := bits.Mul64(a^hashK[0], b^hashK[1])
	x := hi ^ lo
	hi, lo = bits.Mul64(c^hashK[4], d^hashK[5])
	hi, lo = bits.Mul64(x^hashK[2], hi^lo^uint64(n)^hashK[3])
	return hi ^ lo
}

// loadLE64 returns the 8 bytes of s from i, little endian: one load on the
// architectures that allow unaligned ones.
func loadLE64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), len(s))[i:])
}

// loadLE32 returns the 4 bytes of s from i, little endian.
func loadLE32(s string, i int) uint32 {
	return binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(s), len(s))[i:])
}

// Tag returns the part of key that chooses its shard: as in Redis Cluster, the
// bytes between the first '{' and the first '}' after it, when there are any, else
// the whole key. Keys with the same tag ("{user1}:a", "{user1}:b") share a shard,
// so commands on them lock one shard. O(len(key)).
func Tag(key string) string {
	i := strings.IndexByte(key, '{')
	if i < 0 {
		return key
	}
	j := strings.IndexByte(key[i+1:], '}')
	if j <= 0 {
		return key
	}
	return key[i+1 : i+1+j]
}

// TagHash returns the hash of key's tag ([Tag]) and whether the tag is the whole
// key: the hash's low bits choose a shard, and when whole its high 32 are also
// [Hash](key), so that such a key is hashed once for both. A key of up to 32 bytes
// is loaded once, as two or four words, for both the search for a '{' and the hash.
// O(len(key)).
func TagHash(key string) (h uint64, whole bool) {
	switch n := len(key); {
	case n <= 16:
		if a, b := shortWords(key); !hasBrace(a) && !hasBrace(b) {
			return mixShort(a, b, n), true
		}
	case n <= 32:
		if a, b, c, d := midWords(key); !hasBrace(a) && !hasBrace(b) && !hasBrace(c) && !hasBrace(d) {
			return mixMid(a, b, c, d, n), true
		}
	}
	tag := Tag(key)
	return strHash(tag), len(tag) == len(key)
}

// hasBrace reports whether a byte of x is '{'. (y-ones)&^y has the high bit of
// some byte set exactly when y has a zero byte.
func hasBrace(x uint64) bool {
	const ones, highs, braces = 0x0101010101010101, 0x8080808080808080, '{' * 0x0101010101010101
	x ^= braces
	return (x-ones)&^x&highs != 0
}
