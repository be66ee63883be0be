// Package zset implements Redis's sorted set: unique binary-string members ordered by a
// float64 score, ties broken by member bytes, with Redis's exact command semantics.
//
// The zero value of [Set] is an empty set ready to use:
//
//	var s zset.Set
//	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1})
//
// A Set is not safe for concurrent use.
package zset
