// Package fuzz holds zlite's fuzz targets and its differential tests against a real
// redis-server. It has no API: everything lives in its tests.
//
//   - FuzzZSetOrdering and FuzzList decode the fuzzer's bytes into operation
//     sequences on [zset.Set] and [list.List] and compare every result with a tiny
//     reference model (a map sorted on every read, a slice).
//   - FuzzDo sends arbitrary argument vectors, one command per line of its input, to
//     the keyspace's Do and checks that it never panics or hangs, that errors are
//     Redis-shaped, and that the keyspace's invariants hold afterwards.
//   - FuzzDifferential and TestDifferential run the same commands on zlite and on
//     redis-server and require identical replies. The few deliberate loosenings
//     (Redis 7.0's score formatting, random replies…) are listed with their reasons in
//     one table, loosenings in loosen_test.go.
//   - TestDifferentialEvents runs such a transcript with notify-keyspace-events
//     KEAnm on both sides (Redis one of its own, as the setting is server-wide) and
//     a subscriber to every channel, and requires each command's keyspace events
//     to be the same, in the same order (its one loosening, the moment of an
//     expiry, in eventLoosenings).
//   - TestDifferentialMulti runs the same kind of transcript in transactions: MULTI …
//     EXEC on Redis, DB.Update with Tx.Do on zlite.
//   - TestDifferentialBlocking runs blocking pops from several clients on a fixed
//     schedule on both sides and compares who was served what.
//   - FuzzLeaderboard and Example_leaderboard (example_test.go) show how to fuzz one's
//     own score-ordering code on an embedded zlite, with no server.
//
// TestDifferential is seeded: it prints its seed, and ZLITE_SEED=n reruns the same
// transcript. Tests that need Redis use the server named by REDIS_ADDR or start
// redis-server from PATH, and skip when there is none.
package fuzz
