package blocking

import (
	"context"
	"sync"
	"time"
)

// Wait blocks w on its keys until a serve hands it something, its timeout expires
// or ctx is done. The caller must hold mu, the lock under which every method of r
// runs, and must have found nothing for w under it (the keys are tried before
// blocking, as Redis tries them); Wait releases mu before it blocks and returns
// with mu released. A timeout ≤ 0 waits until served or ctx is done.
//
// Wait returns (true, nil) when w was served, even if the timer or ctx fired at the
// same instant: the serve has already taken the element out of its key, so it is
// w's and its result is in w.Req. It returns (false, nil) on timeout and (false,
// ctx.Err()) when ctx is done; then w was served nothing and no later serve can
// reach it. Blocking costs amortised O(len(w.Keys())) under mu, plus one
// time.Timer when timeout > 0; a wait with no timeout and a ctx that is never done
// is a plain channel receive.
//
// The branches, and why each is right:
//   - ctx already done: return ctx.Err() without blocking. The keys were tried
//     first, so a done ctx still gets an element that is there (the opposite of
//     golang.org/x/sync/semaphore, which checks ctx first): a cancelled caller
//     never blocks, but it is never refused what it could have had at once.
//   - <-w.ch: a serve, under mu, wrote the result into w.Req, unlinked w from
//     every queue and then sent; the receive orders the caller after all of it.
//   - ctx.Done() or the timer: re-lock. If w is done, a serve got there between
//     the select and the lock: the element already left its key, and dropping it
//     would lose it, so Wait keeps it (semaphore, whose tokens are
//     interchangeable, gives them back instead) and takes the serve's signal, so
//     the channel is empty when w is reused. Otherwise w is still queued, and
//     unlinking it under mu means no later serve can reach it: nothing is
//     delivered twice.
func (r *Registry[R]) Wait(ctx context.Context, mu sync.Locker, w *Waiter[R], timeout time.Duration) (served bool, err error) {
	if err := ctx.Err(); err != nil {
		mu.Unlock()
		return false, err
	}
	r.enqueue(w)
	if w.Notify != nil {
		w.Notify(true)
	}
	mu.Unlock()

	done := ctx.Done()
	if done == nil && timeout <= 0 {
		<-w.ch
		return true, nil
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	cancelled := false
	select {
	case <-w.ch:
		return true, nil
	case <-done:
		cancelled = true
	case <-expired:
	}
	mu.Lock()
	defer mu.Unlock()
	if w.done {
		<-w.ch
		return true, nil
	}
	r.unlink(w)
	if cancelled {
		return false, ctx.Err()
	}
	return false, nil
}
