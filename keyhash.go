package zlite

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// Keys are hashed once per command (shardHash) and the hash serves both the shard
// and the slot in its key table. A key of up to 16 bytes, the common kind, is hashed
// by mixShort, a seeded multiply-and-fold in the manner of wyhash (two 64×64→128-bit
// products over two words that between them hold every byte of the key), a longer
// one by hash/maphash. maphash.String was 68 of the 690 instructions of a one-key
// ZCARD (callgrind) for its call, its set-up and the AES rounds; mixShort is about
// 20. The keys of the key table are the caller's (a server's clients'), so the mix is
// seeded per process (hashK, from maphash's random seed): which keys collide cannot
// be known in advance, as with maphash.

// keySeed seeds the hashes of keys longer than 16 bytes, and hashK, the keys of
// mixShort.
var keySeed = maphash.MakeSeed()

var hashK = func() (k [4]uint64) {
	for i := range k {
		k[i] = maphash.String(keySeed, string(rune('a'+i))) | 1
	}
	return k
}()

// strHash returns the hash of s: its low bits choose the shard of a hash tag, its
// high 32 a key's slot in its shard's key table. O(len(s)).
func strHash(s string) uint64 {
	if len(s) > 16 {
		return maphash.String(keySeed, s)
	}
	a, b := shortWords(s)
	return mixShort(a, b, len(s))
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

// loadLE64 returns the 8 bytes of s from i, little endian: one load on the
// architectures that allow unaligned ones.
func loadLE64(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), len(s))[i:])
}

// loadLE32 returns the 4 bytes of s from i, little endian.
func loadLE32(s string, i int) uint32 {
	return binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(s), len(s))[i:])
}
