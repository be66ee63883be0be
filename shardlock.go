package zlite

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// shardLock is a shard's lock: one writer at a time (every command, and every
// batch), or any number of readers (batches of reads, rlockMask). It is
// a reader-writer lock built so that a writer pays what a sync.Mutex costs when the
// shard is free, one compare-and-swap to lock and one atomic add to unlock, where
// sync.RWMutex costs a writer two more atomic operations and calls that do not
// inline (42 ns against 14 for a Mutex here): every write would pay that for the
// reads that share.
//
// state holds the number of readers inside in its low 32 bits and the writer's bit
// above them, in one word, so that each side's atomic change also tells it what the
// other holds. A writer takes a free shard by swapping 0 for the bit. A reader adds
// one and, if the writer's bit is set, takes it back and fails (TryRLock): the caller
// then locks as a writer. A writer that finds the shard taken queues on a sync.Mutex
// (which parks the writers in order); the one at its head sets the bit as soon as no
// writer holds it, then waits for the readers inside to leave. New readers back off
// while the bit is set, so readers cannot starve a writer. A writer arriving at a
// free shard takes it even when others queue (barging, which keeps a contended
// shard busy), unless the queue's head has waited starveAfter: it then sets
// queuedBit, which makes the free shard look taken to newcomers, and gets the next
// turn.
//
// The queue's head waits for the writer to leave, and a writer for the readers, by
// checking a few times with the processor yielded in between and then sleeping on
// wakeW or wakeR, which Unlock and the last reader out signal when someone sleeps
// there (sleepW, sleepR). The queue's head first checks a few times without
// yielding (see activeSpins), unless a head slept on this lock lately: a collision
// of commands on random keys then ends without a sleep, and a lock that every
// goroutine wants (one hot key) lets its holder run on while the others sleep.
// Each sleeper counts itself before checking its condition
// and each signaller changes state before reading the count, all sequentially
// consistent, so no wake-up is missed. At most one goroutine waits on each channel (the
// queue's head; the writer holding the bit), and a token left over from a wait that
// ended without it is only a spurious wake-up: a sleeper checks its condition again.
//
// The words every Lock and Unlock touch are 16 bytes; the queue and the channels,
// which only contended locks use, are apart (lockWaits), so that the shard's first
// cache line has room for what its commands write (see [shard]).
type shardLock struct {
	state          atomic.Uint64
	sleepW, sleepR atomic.Int32
	*lockWaits
}

// lockWaits is the part of a shardLock that waiting writers and readers use.
type lockWaits struct {
	wakeW, wakeR chan struct{} // buffered for one token
	queue        sync.Mutex
	// sleptAt is when the queue's head last slept (lockClock), guarded by queue.
	sleptAt time.Duration
}

const (
	writerBit   = 1 << 32
	queuedBit   = 1 << 33 // the queue's head has waited starveAfter: no barging
	readersMask = writerBit - 1
)

// starveAfter is how long the writer at the head of the queue lets newcomers take
// the lock before it (as sync.Mutex's starvation mode does after the same time):
// barging keeps the lock busy under contention, handing it over in order costs a
// wake-up per command.
const starveAfter = time.Millisecond

// spins is the number of times a waiter checks its condition, yielding in between,
// before it sleeps: a command holds a shard for well under a microsecond. Spinning
// longer without yielding (64×16 checks, a few microseconds) let 2 goroutines on
// random keys sleep less (ZADD 0.87 against 0.75 times one goroutine) but made the
// spinner's reads of the lock's cache line, which the holder writes (see [shard]),
// collapse LPUSH+RPOP on one key to 0.37 times one goroutine (0.91 with yields).
const spins = 4

// activeSpins is the number of times the queue's head checks for the writer to leave
// without yielding, with a pause of pauseLoops between checks (about 40 ns), before the
// spins above: two goroutines on two cores that meet on a shard while working on random
// keys then mostly go on without a sleep and a wake-up. Four interleaved rounds, 2
// goroutines on 2 cores, 1,000 keys (BenchmarkParallel): ZADD 350 -> 302 ns/op with the
// cores used 1.81 -> 1.97, ZSCORE 118 -> 103, LPUSH+RPOP 255 -> 245 (cores 1.76 ->
// 1.83). Checking without yielding slows a lock that every goroutine wants, though:
// each check that wins moves the key's cache lines to the other core, where a sleeper
// leaves the holder running alone (LPUSH+RPOP on one key: 217–294 ns/op without the
// checks, 292–365 with them on every wait). So the head skips them while the lock is
// hot: when a head slept on it less than quietAfter ago. With that, the one-key figures
// did not move (ZSCORE 174–207 and 168–241 ns/op in five interleaved rounds). With one
// processor the checks cannot succeed (the holder does not run meanwhile), but there a
// command finds its shard taken only when the holder was preempted inside a command,
// and the checks cost about 0.3 µs.
const (
	activeSpins = 8
	pauseLoops  = 100
	quietAfter  = time.Millisecond
)

// lockClock is the monotonic time since the process started, for sleptAt.
func lockClock() time.Duration { return time.Since(lockEpoch) }

var lockEpoch = time.Now()

func (l *shardLock) init() {
	l.lockWaits = &lockWaits{wakeW: make(chan struct{}, 1), wakeR: make(chan struct{}, 1)}
}

// Lock locks l for a writer. O(1) when l is free; otherwise it waits for the writers
// queued before it and for the readers inside.
func (l *shardLock) Lock() {
	if !l.state.CompareAndSwap(0, writerBit) {
		l.lockSlow()
	}
}

// lockSlow is Lock when the shard is taken.
func (l *shardLock) lockSlow() {
	l.queue.Lock()
	if lockClock()-l.sleptAt > quietAfter {
		spin(func() bool { return l.state.Load()&writerBit == 0 })
	}
	var since time.Time
	for {
		s := l.state.Load()
		if s&writerBit == 0 {
			if l.state.CompareAndSwap(s, s&^queuedBit|writerBit) {
				break
			}
			continue // readers came or went
		}
		switch {
		case since.IsZero():
			since = time.Now()
		case s&queuedBit == 0 && time.Since(since) > starveAfter:
			l.state.Or(queuedBit) // stop the barging: the next Unlock is ours
		}
		if l.await(&l.sleepW, l.wakeW, func() bool { return l.state.Load()&writerBit == 0 }) {
			l.sleptAt = lockClock()
		}
	}
	l.queue.Unlock()
	l.await(&l.sleepR, l.wakeR, func() bool { return l.state.Load()&readersMask == 0 })
}

// Unlock unlocks l, locked by Lock. O(1).
func (l *shardLock) Unlock() {
	l.state.Add(^uint64(writerBit - 1))
	if l.sleepW.Load() != 0 {
		signal(l.wakeW)
	}
}

// TryRLock locks l for a reader, unless a writer holds it or is taking it: then it
// changes nothing and reports false, and the caller locks l as a writer instead. O(1).
func (l *shardLock) TryRLock() bool {
	if l.state.Add(1)&writerBit == 0 {
		return true
	}
	l.RUnlock()
	return false
}

// RUnlock unlocks l, locked by a successful TryRLock. O(1).
func (l *shardLock) RUnlock() {
	if l.state.Add(^uint64(0))&readersMask == 0 && l.sleepR.Load() != 0 {
		signal(l.wakeR)
	}
}

// await returns once done reports true: it checks done spins times, yielding the
// processor in between, then sleeps on wake until a signal (sleep counts it, so that
// the signaller knows to send one). It reports whether it slept.
func (l *shardLock) await(sleep *atomic.Int32, wake chan struct{}, done func() bool) (slept bool) {
	for range spins {
		if done() {
			return false
		}
		runtime.Gosched()
	}
	for {
		sleep.Add(1)
		if done() {
			sleep.Add(-1)
			return slept
		}
		<-wake
		slept = true
		sleep.Add(-1)
		if done() {
			return true
		}
	}
}

// spin checks done up to activeSpins times, pausing in between without yielding
// the processor, and returns at the first check that reports true (the caller
// checks its condition again either way).
func spin(done func() bool) {
	for range activeSpins {
		if done() {
			return
		}
		pause()
	}
}

// pause runs pauseLoops empty iterations, touching no memory, so that a spinner's
// checks leave the lock's cache line to its holder for a while.
//
//go:noinline
func pause() {
	for i := 0; i < pauseLoops; i++ {
	}
}

// signal leaves a token on wake unless one is there already.
func signal(wake chan struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}
