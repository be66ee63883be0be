package shardlock

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// RWMutex is a reader-writer lock: one writer at a time, or any number of readers
// that got in with TryRLock. The zero value is not ready: call Init once before use.
// See the package doc for the design.
type RWMutex struct {
	state          atomic.Uint64
	sleepW, sleepR atomic.Int32
	*lockWaits
}

// lockWaits is the part of a RWMutex that waiting writers and readers use.
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
// before it sleeps: a critical section here is well under a microsecond. Spinning
// longer without yielding makes the spinner's reads of the lock's cache line, which
// the holder writes, slow the holder down on a lock every goroutine wants.
const spins = 4

// activeSpins is the number of times the queue's head checks for the writer to leave
// without yielding, with a pause of pauseLoops between checks (tens of nanoseconds),
// before the spins above: two goroutines on two cores that meet on a lock while
// working on different data then mostly go on without a sleep and a wake-up. On a
// lock that every goroutine wants, though, each check that wins moves the data's
// cache lines to the other core, where a sleeper leaves the holder running alone; so
// the head skips these checks while the lock is hot, when a head slept on it less
// than quietAfter ago. With one processor the checks cannot succeed (the holder does
// not run meanwhile) and cost a fraction of a microsecond.
const (
	activeSpins = 8
	pauseLoops  = 100
	quietAfter  = time.Millisecond
)

// lockClock is the monotonic time since the process started, for sleptAt.
func lockClock() time.Duration { return time.Since(lockEpoch) }

var lockEpoch = time.Now()

// Init makes l ready for use; it must be called once, before any other method.
func (l *RWMutex) Init() {
	l.lockWaits = &lockWaits{wakeW: make(chan struct{}, 1), wakeR: make(chan struct{}, 1)}
}

// Lock locks l for a writer. O(1) when l is free; otherwise it waits for the writers
// queued before it and for the readers inside.
func (l *RWMutex) Lock() {
	if !l.state.CompareAndSwap(0, writerBit) {
		l.lockSlow()
	}
}

// lockSlow is Lock when l is taken.
func (l *RWMutex) lockSlow() {
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
func (l *RWMutex) Unlock() {
	l.state.Add(^uint64(writerBit - 1))
	if l.sleepW.Load() != 0 {
		signal(l.wakeW)
	}
}

// TryRLock locks l for a reader, unless a writer holds it or is taking it: then it
// changes nothing and reports false, and the caller locks l as a writer instead. O(1).
func (l *RWMutex) TryRLock() bool {
	if l.state.Add(1)&writerBit == 0 {
		return true
	}
	l.RUnlock()
	return false
}

// RUnlock unlocks l, locked by a successful TryRLock. O(1).
func (l *RWMutex) RUnlock() {
	if l.state.Add(^uint64(0))&readersMask == 0 && l.sleepR.Load() != 0 {
		signal(l.wakeR)
	}
}

// await returns once done reports true: it checks done spins times, yielding the
// processor in between, then sleeps on wake until a signal (sleep counts it, so that
// the signaller knows to send one). It reports whether it slept.
func (l *RWMutex) await(sleep *atomic.Int32, wake chan struct{}, done func() bool) (slept bool) {
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

// Holders reports the readers inside l and whether a writer holds or is taking it, for
// tests and diagnostics: by the time it returns, either may have changed. O(1).
func (l *RWMutex) Holders() (readers int, writer bool) {
	s := l.state.Load()
	return int(s & readersMask), s&writerBit != 0
}
