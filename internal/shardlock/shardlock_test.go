package shardlock

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func newRWMutex() *RWMutex {
	l := &RWMutex{}
	l.Init()
	return l
}

// TestShardLockExclusion runs writers and readers on one lock. Writers change two
// plain fields together; readers check that they are equal. Under -race, any read
// or write the lock fails to order is reported, and a reader inside with a writer
// sees the fields differ.
func TestShardLockExclusion(t *testing.T) {
	l := newRWMutex()
	var a, b int
	const writers, readers, rounds = 3, 3, 2000
	var wg sync.WaitGroup
	torn := make(chan [2]int, readers)
	for range writers {
		wg.Go(func() {
			for range rounds {
				l.Lock()
				a++
				runtime.Gosched() // let readers try while the writer is inside
				b++
				l.Unlock()
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for range rounds {
				if l.TryRLock() {
					if a != b {
						torn <- [2]int{a, b}
					}
					l.RUnlock()
				} else {
					l.Lock() // as rlockKey does
					if a != b {
						torn <- [2]int{a, b}
					}
					l.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(torn)
	for ab := range torn {
		t.Errorf("a reader saw a = %d, b = %d: inside with a writer", ab[0], ab[1])
	}
	require.Equal(t, writers*rounds, a)
	require.Equal(t, writers*rounds, b)
	require.Zero(t, l.state.Load(), "the lock is free")
}

// TestShardLockSleepers checks the two waits that sleep: a writer waiting for a
// reader to leave, and a writer waiting for another writer. Each waiter is let go only
// once it sleeps (its count is up), so the wake-up, not the spinning, must free it; a
// missed wake-up hangs the test. A sleep of the queue's head marks the lock hot
// (sleptAt), which turns off the next heads' spinning for a while; a writer waiting
// for readers is not the queue's head and leaves it unmarked.
func TestShardLockSleepers(t *testing.T) {
	tests := []struct {
		name          string
		hold, release func(l *RWMutex)
		sleeping      func(l *RWMutex) int32
		hot           bool
	}{
		{"writer waits for reader",
			func(l *RWMutex) { require.True(t, l.TryRLock()) }, (*RWMutex).RUnlock,
			func(l *RWMutex) int32 { return l.sleepR.Load() }, false},
		{"writer waits for writer",
			(*RWMutex).Lock, (*RWMutex).Unlock,
			func(l *RWMutex) int32 { return l.sleepW.Load() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newRWMutex()
			tt.hold(l)
			done := make(chan bool)
			go func() {
				l.Lock()
				inside := l.state.Load() == writerBit
				l.Unlock()
				done <- inside
			}()
			for tt.sleeping(l) == 0 {
				runtime.Gosched()
			}
			require.False(t, l.TryRLock(), "a writer holds or is taking the lock: new readers back off")
			tt.release(l)
			require.True(t, <-done, "the writer held the lock alone")
			require.Zero(t, l.state.Load())
			if tt.hot {
				require.Positive(t, l.sleptAt, "the head's sleep marks the lock hot")
				require.LessOrEqual(t, l.sleptAt, lockClock())
			} else {
				require.Zero(t, l.sleptAt, "no head slept")
			}
			require.True(t, l.TryRLock(), "free again: a reader gets in")
			l.RUnlock()
		})
	}
}

// TestShardLockQueued checks the starvation bit: while the queue's head has it set,
// a free lock looks taken to a writer's fast path (which then queues behind it and
// takes the lock in turn, clearing the bit), but not to readers.
func TestShardLockQueued(t *testing.T) {
	l := newRWMutex()
	l.state.Or(queuedBit)
	require.True(t, l.TryRLock(), "readers do not queue behind writers")
	l.RUnlock()
	require.False(t, l.state.CompareAndSwap(0, writerBit), "the fast path fails")
	l.Lock() // through the queue: no writer holds it, so it is ours
	require.Equal(t, uint64(writerBit), l.state.Load(), "held, the bit cleared")
	l.Unlock()
	require.Zero(t, l.state.Load())
}

// TestSpin checks the queue's head's checks without yielding: spin stops at the
// first check that succeeds and gives up after activeSpins.
func TestSpin(t *testing.T) {
	tests := []struct {
		name      string
		trueAt    int // the check that first succeeds; 0: none does
		wantCalls int
	}{
		{"free at once", 1, 1},
		{"free at the third check", 3, 3},
		{"free at the last check", activeSpins, activeSpins},
		{"never free", 0, activeSpins},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			spin(func() bool {
				calls++
				return calls == tt.trueAt
			})
			require.Equal(t, tt.wantCalls, calls, "checks made")
		})
	}
}

// TestHolders checks what Holders reports in each state of the lock.
func TestHolders(t *testing.T) {
	l := newRWMutex()
	check := func(wantReaders int, wantWriter bool) {
		t.Helper()
		r, w := l.Holders()
		require.Equal(t, wantReaders, r, "readers")
		require.Equal(t, wantWriter, w, "writer")
	}
	check(0, false)
	require.True(t, l.TryRLock())
	require.True(t, l.TryRLock())
	check(2, false)
	l.RUnlock()
	l.RUnlock()
	l.Lock()
	check(0, true)
	require.False(t, l.TryRLock(), "a reader cannot enter while a writer holds the lock")
	check(0, true)
	l.Unlock()
	check(0, false)
}
