package zlite

// Expires returns the number of keys that have a TTL, as INFO keyspace's expires=
// counts them: a key whose time has come counts until it is deleted (when next
// accessed, or by active expiry), as in Redis. The complexity is O(1).
func (tx *Tx) Expires() int64 { return int64(len(tx.db.exp.at)) }

// ExpiredKeys returns the number of keys deleted because their time came since the
// keyspace was made (INFO's expired_keys). The complexity is O(1).
func (tx *Tx) ExpiredKeys() uint64 { return tx.db.exp.expired }
