// Package compat runs third-party Redis libraries, unchanged, against zlite and
// against a real redis-server in the same test run, and requires them to behave
// the same on both: github.com/bsm/redislock (a lock on SET NX PX and Lua),
// github.com/go-redis/redis_rate (a GCRA rate limiter in Lua),
// github.com/go-redsync/redsync (Redlock, through its go-redis v9 pool) and
// github.com/adjust/rmq (a reliable queue on lists, sets and strings).
//
// rmq's own test suite runs too, unchanged (TestRMQSuite): its tests take a Redis
// address, so its test binary is built with the go command and run against a zlite
// server this process serves on a loopback port, and against a redis-server of its
// own. A few of rmq's tests race with their own consumer goroutines, on Redis as on
// zlite, so each may take up to three runs; every one must pass on both.
//
// It holds tests only. Every test runs twice, as the subtests impl=zlite (a new
// in-process keyspace reached by go-redis through server.Dialer, with no socket)
// and impl=redis (a redis-server that internal/redistest finds at REDIS_ADDR or
// starts from PATH on a free loopback port; without one those subtests are skipped
// with the reason), with the same assertions. A test that passes on redis-server
// and fails on zlite is a zlite bug.
//
// The package is a module of its own so that the libraries it exercises are never
// among the dependencies of a program that uses zlite. From the repository's root:
//
//	go test -C compat ./...
//	go test -C compat -race -run Redsync ./...
//
// Lock expiry and rate windows are tested without waiting for the clock: locks and
// limits last an hour, and the tests check TTL bounds, denials and RetryAfter, and
// expire a lock by deleting its key.
package compat
