package zlite

// ExpiryCounts returns, for the keyspace of tx, the number of keys that have a TTL
// (INFO keyspace's expires=), counting a key whose time has come until it is deleted
// (when next accessed, or by active expiry) as Redis does, and the number of keys
// deleted because their time came since the keyspace was made (INFO's
// expired_keys). It is a function rather than a method of Tx because every
// exported Tx method is a Redis command with a DB twin (see db_methods.go). The
// complexity is O(1).
func ExpiryCounts(tx *Tx) (expires int64, expired uint64) {
	return int64(len(tx.db.exp.at)), tx.db.exp.expired
}
