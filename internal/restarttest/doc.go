// Package restarttest holds the restart tests of the queues on a persistent
// keyspace: each queue type of package queues runs on [zlite.Open]ed directories
// through package queues/embedded, the DB is closed (or its process would have crashed:
// the crash test of package zlite covers that) and opened again, and the queue must
// go on as if nothing happened: nothing acknowledged is lost, nothing is delivered
// twice beyond the queue's contract, and the timers of the delayed queue and the
// scheduler are armed again from the stored state. It has no non-test code.
package restarttest
