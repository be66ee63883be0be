package inspector_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/zlite/zlite/inspector"
)

// fakeQueue is a Queue whose figures and items the test sets; it supports every
// action, on items in the matching state.
type fakeQueue struct {
	name string
	kind inspector.Kind
	mu   sync.Mutex
	st   inspector.Stats
	it   []inspector.Item
	err  error // returned by Stats and Items when set
}

var (
	_ inspector.Canceler      = (*fakeQueue)(nil)
	_ inspector.LeaseRequeuer = (*fakeQueue)(nil)
	_ inspector.DeadMover     = (*fakeQueue)(nil)
)

func (q *fakeQueue) Name() string         { return q.name }
func (q *fakeQueue) Kind() inspector.Kind { return q.kind }

func (q *fakeQueue) Stats(context.Context) (inspector.Stats, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := q.st
	st.Depth = 0
	for _, it := range q.it {
		if it.State == "" || it.State == inspector.StateWaiting || it.State == inspector.StateScheduled {
			st.Depth++
		}
	}
	return st, q.err
}

func (q *fakeQueue) Items(_ context.Context, offset, count int64) ([]inspector.Item, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return nil, q.err
	}
	var out []inspector.Item
	for i := offset; i < int64(len(q.it)) && i < offset+count; i++ {
		it := q.it[i]
		it.Position = i + 1
		out = append(out, it)
	}
	return out, nil
}

// take removes the item id if it is in one of the states and reports whether it did.
func (q *fakeQueue) take(id string, states ...inspector.ItemState) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	i := slices.IndexFunc(q.it, func(it inspector.Item) bool { return it.ID == id && slices.Contains(states, it.State) })
	if i < 0 {
		return false
	}
	q.it = slices.Delete(q.it, i, i+1)
	return true
}

func (q *fakeQueue) Cancel(_ context.Context, id string) (bool, error) {
	return q.take(id, "", inspector.StateWaiting, inspector.StateScheduled), nil
}

func (q *fakeQueue) RequeueExpired(_ context.Context, id string) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.it {
		if q.it[i].ID == id && q.it[i].State == inspector.StateExpired {
			q.it[i].State, q.it[i].LeaseExpiry = inspector.StateWaiting, time.Time{}
			return true, nil
		}
	}
	return false, nil
}

func (q *fakeQueue) MoveDeadBack(_ context.Context, id string) (bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.it {
		if q.it[i].ID == id && q.it[i].State == inspector.StateDead {
			q.it[i].State = inspector.StateWaiting
			return true, nil
		}
	}
	return false, nil
}

// lenOnly is a queue that cannot list its items and supports no action.
type lenOnly struct{ name string }

func (q lenOnly) Name() string         { return q.name }
func (q lenOnly) Kind() inspector.Kind { return inspector.KindFIFO }
func (q lenOnly) Stats(context.Context) (inspector.Stats, error) {
	return inspector.Stats{Depth: 7}, nil
}
func (q lenOnly) Items(context.Context, int64, int64) ([]inspector.Item, error) {
	return nil, errors.ErrUnsupported
}

// errOnly drops the id an enqueue returns, for calls that check only the error.
func errOnly(_ string, err error) error { return err }
