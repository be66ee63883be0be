package zlite

import "math/bits"

// ExpiryCounts returns, for the keyspace of tx, the number of keys that have a TTL
// (INFO keyspace's expires=), counting a key whose time has come until it is deleted
// (when next accessed, or by active expiry) as Redis does, and the number of keys
// deleted because their time came since the keyspace was made (INFO's
// expired_keys). It is a function rather than a method of Tx because every
// exported Tx method is a Redis command with a DB twin (see db_methods.go). The
// counts are those of the shards tx holds (every shard in [DB.View]). The
// complexity is O(shards).
func ExpiryCounts(tx *Tx) (expires int64, expired uint64) {
	for b := tx.held; b != 0; b &= b - 1 {
		sh := &tx.db.shards[bits.TrailingZeros64(b)]
		expires += int64(len(sh.exp.at))
		expired += sh.exp.expired
	}
	return expires, expired
}
