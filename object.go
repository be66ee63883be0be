package zlite

// ObjectEncoding is OBJECT ENCODING key: what Redis says for key: a sorted set's
// own encoding ("listpack" while small, "skiplist" after, as [zset.Set.Encoding]
// reports), "quicklist" for a list (Redis 7.0's only list encoding); ok is false
// when key does not exist. The complexity is O(1).
//
//zlite:command object key
func (tx *Tx) ObjectEncoding(key string) (enc string, ok bool) {
	switch v := tx.value(key).(type) {
	case nil:
		return "", false
	case interface{ Encoding() string }:
		return v.Encoding(), true
	}
	return "quicklist", true
}
