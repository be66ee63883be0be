// Package persist implements crash-safe storage for an in-memory keyspace: an
// append-only log of records plus compact snapshots of the whole keyspace, in one
// directory. It knows nothing of commands: a record is an opaque payload (the
// keyspace logs, for instance, the words of each write command, or of a whole atomic
// batch), and a snapshot is a stream of keys (name, type, expiry time, elements).
//
// The write path splits in two, so that the I/O happens outside the caller's lock:
//
//	pos, err := st.Append(payload) // under the keyspace lock: a copy into a buffer
//	...                            // (or into the mapped log: see Memory-mapped logs)
//	...                            // unlock
//	err = st.Wait(pos)             // write(2), and fsync as the SyncPolicy says
//
// and [Open] hands the stored state to a [Replayer]: the snapshot's keys, then the
// log's records after it.
//
// # Guarantees
//
// A record is the unit of atomicity: after any crash it is either whole or absent,
// never in part. Records are written, and replayed, in the order of their positions
// (the order of the Append calls; of concurrent calls, the order in which they took
// their place). When Wait(pos) has returned nil:
//
//   - [Always]: record pos and every record before it are written and fsynced: they
//     survive a process crash and a power loss (as far as the disk honours fsync).
//   - [EverySecond]: record pos is in the file (copied whole into its shared
//     mapping, its commit word last, or write(2) returned), and so is every record
//     whose Append returned before pos's
//     began, so they survive a process crash (SIGKILL, panic, OOM kill); a
//     background fsync every sync interval (1 s by default) bounds what a power loss
//     can take to about that interval plus one fsync.
//   - [Never]: as EverySecond for a process crash; after a power loss, what survives
//     is up to the operating system.
//
// After a process crash the store holds every acknowledged record and possibly some
// appended but not yet acknowledged; after a power loss, at least every record
// fsynced. A record for which Wait did not return nil may therefore be present after a
// restart. Under Always, and wherever records go through write(2), what survives is a
// prefix of the records appended. In a memory-mapped log (EverySecond and Never on
// Linux) concurrent Appends copy their records at the same time, so a record whose
// Append had not returned when the process died may be missing while later records,
// appended meanwhile by other goroutines, are present (see Memory-mapped logs). Append
// is called under the caller's lock: two records appended under a common lock (two
// writes of one key) are never separated that way, as the second is appended only
// after the first one's Append returned. These promises are what the
// tests check: a child process SIGKILLed at random moments (every policy; under
// EverySecond and Never also with records of up to 64 KiB and a snapshot every few
// records, and stopped halfway through a copy into the mapped log), a power
// loss simulated at every file-system step of a workload of appends and snapshots
// (losing what was not fsynced, keeping a random part of it), a full disk and a
// failing fsync injected through [FS].
//
// # Records
//
// persist does not interpret payloads. [AppendCommand] and [Commands] are an encoding
// for the usual case, a record holding one command or an atomic batch of commands,
// each a list of words: per command uvarint(number of words), then per word
// uvarint(length) and its bytes.
//
// # Memory-mapped logs
//
// Under EverySecond and Never on Linux, the log is memory-mapped: its file is
// preallocated with fallocate(2) (4 MiB at first, then by its own size, at most 64 MiB
// at a time, in multiples of 2 MiB) and Append frames the record straight into a
// shared mapping of it, made of transparent huge pages where the file system allows
// (madvise MADV_HUGEPAGE; a TLB miss per 4 KiB page is much of a copy's cost). The
// page cache holds those pages whatever happens to the process, so the record is
// as safe against a process crash as after write(2), and Wait has nothing left to do:
// a write costs a copy and a CRC, no system call.
//
// Appends to a mapped log take no lock (but when the room preallocated, or 64 MiB
// since the last time, is used up):
// an Append reserves its record's bytes with one compare-and-swap on the end of the
// reserved part of the log, copies the record there and counts the copy done with
// one atomic add, so that appenders on several cores copy at the same time (a lock
// held during the copy made them wait for each other: with 16 writers on 2 cores,
// a persistent keyspace wrote at a fifth of its in-memory rate). A record's
// copy first writes its head (length and the length's CRC) in one 8-byte write, then
// its payload, then its commit word (the payload's CRC) in one 4-byte write (format
// version 3, see Files): what a process killed during a copy leaves is either
// zeros or a head without its commit word, a hole that Open skips (see Recovery).
// Records that waited in the buffer (during a rotation, or while a flusher wrote)
// go into the mapping the same way, a record at a time, and never in one copy of
// the buffer: memmove stores a region's bytes in no set order (on amd64 its first
// 32 bytes after the rest), so a process killed during such a copy could leave a
// record's payload after a head still zero, which Open cannot tell from damage.
// Whatever must change the log (growing its mapping, a rotation, a flush, a
// failure, Close) first stops these appends and waits for the copies in flight.
//
// The fsyncs (every interval, at a rotation, at Close) write the mapped pages out.
// Preallocation reserves the disk blocks, so a full disk is an ENOSPC from
// fallocate, returned by the Append that needed the room (no room is reserved for
// it, so it leaves no hole), and never a SIGBUS while copying. A background goroutine takes
// the page faults of the next few MiB ahead of the writer (madvise
// MADV_POPULATE_WRITE), since a first write to a page over preallocated blocks may
// sleep in the file system. Under Always, and where the platform (or an [FS] other
// than [OSFS]) cannot map, records go through write(2): under Always the fsync is the
// cost. While a rotation is pending, records wait in the buffer as with write(2),
// so that the old log is fsynced before the new one holds any.
//
// # Failures
//
// When a write, an fsync or a preallocation of the log fails (ENOSPC, EIO, ...), every
// Wait for a record not yet durable returns the error (for a preallocation, the
// Append that needed it returns it, and its record is not in the log), which matches [ErrFailed] and wraps the system's
// error (errors.Is(err, syscall.ENOSPC) works). A short write is truncated back to the
// last whole record (if that fails too, the torn tail is dropped at the next Open).
// From then on the store is failed: [Store.Append] and [Store.StartSnapshot] return
// the error, until the store is closed and opened again. This is Redis's refusal of
// writes after an AOF write error ("-MISCONF Errors writing to the AOF file: ..."),
// applied to every policy; Redis itself exits on such an error under appendfsync
// always. The failure is sticky because after a failed fsync the kernel may have
// dropped the dirty pages, so nothing already written can be trusted to reach the disk.
//
// The state in memory and the log then differ: the keyspace applied the writes whose
// Wait failed, the log does not have them (or has some of them, if the truncation
// failed). The keyspace should report those writes as failed and refuse further
// writes; after a restart, the state is what the log holds.
//
// A failure while writing a snapshot fails the store in the same way (Redis refuses
// writes after a failed BGSAVE, stop-writes-on-bgsave-error), but loses nothing: the
// older snapshot and the logs since stay the store's state.
//
// # Snapshots and compaction
//
// [Store.StartSnapshot] rotates the log (records appended after it go to a new log)
// and returns a [SnapshotWriter] for the state as of that point, which the caller
// streams key by key from another goroutine, without holding its lock for the whole
// duration (copy-on-write of the keys not yet written is the caller's part).
// [SnapshotWriter.Commit] then makes it durable and drops what it replaces:
//
//  1. finish the rotation: the records before it written and fsynced to the old log;
//  2. write the end frame, fsync the snapshot's temporary file, close it;
//  3. rename it to its final name and fsync the directory: the commit point;
//  4. remove the older snapshot and logs, fsync the directory.
//
// The state on disk is always the newest complete snapshot plus every log of the same
// or a later generation, so a crash at any point reopens to a correct state: before
// step 3 the older snapshot and both logs are the state (the temporary file is
// removed at Open), after it the new snapshot and the new log are, and files left by
// step 4 are removed at Open. Each of these crash points is tested.
//
// # Recovery
//
// Open loads the newest snapshot and replays the log chain after it. In a log of
// version 3, records are aligned to 8 bytes, and at a record's start:
//
//   - zeros up to the end of the file are the clean end of the log (the rest is
//     preallocated space);
//   - zeros up to an 8-byte word that is not zero are a hole: room reserved by
//     appends whose process died before they wrote anything;
//   - a head with its checksum and a commit word of zero is a hole: a record whose
//     copy a crash interrupted;
//   - a head failing its checksum, a commit word that is not zero and not the
//     payload's checksum, padding that is not zero, is damage (a CorruptError);
//   - a record running past the end of the file is a torn final record (a write(2)
//     cut short).
//
// A hole followed by records is skipped with a warning (no record in it was
// acknowledged: its Append never returned), in any log; holes after the last
// record are a torn tail, dropped as below. (Damage could take the shape of a hole
// only by zeroing exactly a record's commit word, or whole 8-byte words from a
// record's start up to the next record.) In a log of
// version 2, a record header of 12 zero bytes followed by nothing but zeros is the
// clean end of the log (the rest is preallocated space). A torn final record of the
// last log (fewer bytes left than a record header; a valid header whose payload runs
// past the end of the file; nothing but zero bytes from the record's start to the end
// of a version 1 file, as a power loss can leave a file extended but not written; in
// a version 2 file, a record cut short while being copied into the mapping: a header
// failing its checksum, or a payload failing its checksum and holding a zero byte,
// followed by nothing but zeros) is dropped with a warning and the file is truncated
// to the last whole record, like Redis's aof-load-truncated yes. Anything else is a
// [*CorruptError]
// naming the file and the byte offset, and Open fails: a checksum mismatch anywhere
// else (even in the final record: a whole record whose checksum fails with no zero
// byte in it, or followed by anything but zeros, is damage, not a torn write), a torn record in a log followed by a log holding records (a rotation
// fsyncs the old log before the new one gets its first record, so only a power loss
// just after a rotation leaves a torn log followed by empty ones, and that is
// recovered as above), a bad header, an unknown format version, a snapshot without
// its end frame, a log missing from the chain. (A power loss under EverySecond or
// Never can also leave holes in the part written since the last fsync, the disk
// writing pages out of order: a zero page followed by records is then reported as
// damage at the offset where the records resume, as with write(2), unless it starts
// and ends at record boundaries; then, in a log of version 3, it is skipped as a
// hole, losing records that had not been fsynced.)
// The keyspace is never silently partial. (A Replayer may still have been handed part
// of the state before the error; the caller discards it.)
//
// Open does not know which records were acknowledged, and so does not take the
// records it cannot read at the end of the last log for a torn tail unless they
// have one of the shapes above. Under Always an acknowledged record is fsynced, but
// under EverySecond and Never an acknowledgement is a copy into the page cache or a
// write(2), which leaves no mark in the file: the final record of the file is as
// likely as any to have been acknowledged, and a damaged one must not be dropped
// as if it had been cut short. It is the writers instead that order their stores
// (head, payload, commit word, a record after the other) so that what a process
// crash leaves of a record is always a hole or a torn tail of the shapes above.
//
// # Concurrency
//
// A [Store] is safe for concurrent use. Append takes an internal mutex for a copy
// into a buffer, but not to append to a memory-mapped log (see Memory-mapped logs);
// Wait returns at once, without it, when the record is already durable; otherwise it
// takes it briefly and does its I/O without it, and at most one goroutine does
// log I/O at a time (a "flusher"): writers that Wait while a write or fsync is in
// flight wait for it, and the first of them then writes everything appended
// meanwhile, in one write and one fsync (group commit). The EverySecond fsync runs in
// a background goroutine and does not hold up writers, nor does a mapped log's
// prefaulting. Only one snapshot can be in
// progress; a [SnapshotWriter] is used by one goroutine at a time. A directory is
// locked (flock(2) on its LOCK file) by the Store that has it open; a second Open,
// in this process or another, fails with [ErrLocked].
//
// # Costs
//
//	Append           O(len(payload)): a copy and a CRC-32C, no allocation in steady state;
//	                 on a mapped log no lock, a compare-and-swap and an atomic add, and
//	                 one fallocate(2) and mremap(2) per preallocation
//	Wait, Always     one write(2) and one fsync(2) per group of concurrent writers
//	Wait, mapped     nothing (an atomic load), except after a rotation
//	Wait, others     one write(2) per group of concurrent writers
//	StartSnapshot    creates two files (no fsync)
//	Commit           three fsyncs (old log, snapshot, directory) and the removals
//	Open             one sequential read of the snapshot and the logs
//
// Framing takes 12 bytes per record, plus 0 to 7 bytes of padding in a log of version
// 3 (3.5 on average); a snapshot takes per element its length varint
// and bytes, plus for a sorted-set entry a varint (integral scores) or 8 bytes.
// Measured figures are in the package's benchmarks (bench_test.go).
//
// # Files
//
// A directory holds:
//
//	LOCK                                  the lock file (empty)
//	snapshot-<gen>.zsnap                  a complete snapshot of generation gen
//	snapshot-<gen>.zsnap.tmp              a snapshot being written (removed at Open)
//	log-<gen>.zlog                        the log of generation gen
//
// where <gen> is a 20-digit decimal number (so names sort by generation). A new store
// starts with log 1 and no snapshot; a snapshot of generation g covers every record
// of the logs below g, and log g holds the records appended after it. Other files are
// left alone.
//
// All integers are little-endian; varints are encoding/binary's (Uvarint, and Varint
// for signed values, zig-zag). Every file starts with a 24-byte header:
//
//	magic       8 bytes   "ZLITELOG" (a log) or "ZLITESNP" (a snapshot)
//	version     uint16    3 (1 and 2 are read too)
//	flags       uint16    0
//	generation  uint64    the generation in the file name
//	crc         uint32    CRC-32C (Castagnoli) of the 20 bytes before it
//
// A reader accepts every version from 1 to the one it writes, and refuses a newer one
// (or unknown flags) with a CorruptError, so a later version that changes a layout
// below bumps the version and keeps reading the older ones. Version 2 differs from
// version 1 in one point: a log may end in zero bytes (space preallocated for its
// mapping), a zero record header marking the end of its records. Version 3 changes
// the framing of a log's records (below). Snapshots are the same in all three. Records
// are appended only to a log of version 3: when the last log of the chain is of an
// older version, Open leaves it as it is and starts the next log of the chain (as
// an aborted snapshot would). A log reopened with write(2) has its zero tail cut
// off.
//
// A log of version 3 is the header followed by records, each starting at a multiple
// of 8 bytes:
//
//	length      uint32    payload length, 1 to MaxRecordSize
//	lengthcrc   uint32    CRC-32C of the 4 bytes before it
//	commit      uint32    CRC-32C of the payload, 1 if that is 0 (0: not committed)
//	payload     length bytes
//	padding     zero bytes up to a multiple of 8
//
// The first 8 bytes (the head) are written at once and the commit word last, so that
// a crash during a copy into the mapped log leaves a recognisable hole (see
// Recovery); the head's checksum tells a damaged length (an error) from the holes.
// A log of version 1 or 2 is the header followed by records framed as a snapshot's
// frames are, and a snapshot the header followed by frames:
//
//	length      uint32    payload length, 1 to MaxRecordSize
//	crc         uint32    CRC-32C of the payload
//	headercrc   uint32    CRC-32C of the 8 bytes before it
//	payload     length bytes
//
// The header's own checksum tells a damaged length (an error) from a record cut
// short by a crash (a torn tail). A snapshot's frames start with a kind byte:
//
//	'K' type:byte expireAt:varint nameLen:uvarint name
//	      a key: type 1 is a list, 2 a sorted set; expireAt is a Unix time in
//	      milliseconds, 0 for none; its elements follow in 'E' frames
//	'E' element...
//	      elements of the last key, cut into frames of about 32 KiB:
//	      list item:     len:uvarint bytes
//	      sorted set:    (len<<1 | 1):uvarint member score:varint   integral score, |s| ≤ 2^53
//	                     (len<<1):uvarint member score:float64-bits otherwise (and -0)
//	'Z' keys:uvarint elements:uvarint crc:uint32
//	      the end: the number of keys and elements, and the CRC-32C of the payloads of
//	      every frame before it; nothing may follow
//
// # Differences from Redis
//
// Redis's AOF holds the commands in RESP with no checksum per record (only a torn
// tail is detected, by a RESP parse error at the end); here every record has a CRC-32C
// and damage anywhere is an error naming its offset. Redis 7's multi-part AOF uses a
// manifest file to name the base RDB and the incremental AOFs; here the generation in
// the file names plays that role, with the snapshot's rename as the commit point.
// Redis forks to write an RDB; here the caller streams the keys to a SnapshotWriter.
// Redis's everysec writes its AOF buffer before replying (beforeSleep), but
// postpones the write, for up to two seconds, while a background fsync is still
// running (aof.c, flushAppendOnlyFile), and still replies: a process crash can then
// lose up to two seconds of acknowledged writes. Here a record is in the file (the
// mapping, or written) before Wait returns, whatever the background fsync is doing,
// and Wait never waits for it. Redis writes its AOF with write(2); a mapped log
// trades that system call for a copy.
package persist
