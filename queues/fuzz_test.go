package queues_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// The fuzz targets decode their input into operations, apply them to a queue on the
// embedded backend and to a tiny reference model, and compare every result. (The
// differential test shows that the Redis backend gives the same results.)

type modelCall struct {
	id    string
	prio  float64
	seq   int
	since time.Time
}

func FuzzCallQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 3, 1, 0, 2, 1, 3, 2, 4, 5, 5, 0})
	f.Add([]byte{0, 0, 5, 9, 0, 1, 5, 9, 0, 2, 4, 3, 3, 1, 1, 1, 1})
	f.Add([]byte{0, 7, 0, 7, 2, 7, 0, 7, 4, 0, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		clock := newFakeClock()
		q := queues.NewCallQueue(embedded.New(zlite.New()), "calls", queues.WithClock(clock.Now))
		var model []modelCall
		seq := 0
		order := func() {
			sort.SliceStable(model, func(i, j int) bool {
				if model[i].prio != model[j].prio {
					return model[i].prio > model[j].prio
				}
				return model[i].seq < model[j].seq
			})
		}
		find := func(id string) int {
			return slices.IndexFunc(model, func(c modelCall) bool { return c.id == id })
		}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%6, ops[i+1]
			id := fmt.Sprint("c", arg%8)
			var got, want string
			switch op {
			case 0:
				prio := float64(arg / 8 % 4)
				err := q.Enqueue(ctx, id, prio)
				got = fmt.Sprint(err)
				if find(id) >= 0 {
					want = fmt.Sprint(&queues.Error{Type: "callqueue", Queue: "calls", Op: "enqueue", ID: id, Err: queues.ErrDuplicate})
				} else {
					seq++
					model = append(model, modelCall{id, prio, seq, clock.Now()})
					order()
					want = "<nil>"
				}
			case 1:
				c, ok, err := q.TryDequeue(ctx)
				got = fmt.Sprint(c.ID, c.Priority, c.Since.UTC(), ok, err)
				if len(model) == 0 {
					want = fmt.Sprint("", 0, time.Time{}.UTC(), false, nil)
				} else {
					m := model[0]
					model = model[1:]
					want = fmt.Sprint(m.id, m.prio, m.since, true, nil)
				}
			case 2:
				ok, err := q.Cancel(ctx, id)
				got = fmt.Sprint(ok, err)
				k := find(id)
				if k >= 0 {
					model = slices.Delete(model, k, k+1)
				}
				want = fmt.Sprint(k >= 0, nil)
			case 3:
				pos, ok, err := q.Position(ctx, id)
				got = fmt.Sprint(pos, ok, err)
				k := find(id)
				want = fmt.Sprint(k+1, k >= 0, nil)
			case 4:
				maxWait := time.Duration(arg%16) * time.Second
				cs, err := q.Stale(ctx, maxWait)
				var g, w []string
				for _, c := range cs {
					g = append(g, fmt.Sprint(c.ID, c.Priority, c.Since.UTC()))
				}
				old := slices.Clone(model)
				sort.SliceStable(old, func(i, j int) bool { return old[i].seq < old[j].seq })
				for _, m := range old {
					if m.since.Before(clock.Now().Add(-maxWait)) {
						w = append(w, fmt.Sprint(m.id, m.prio, m.since))
					}
				}
				got, want = fmt.Sprint(g, err), fmt.Sprint(w, nil)
			default:
				clock.Advance(time.Duration(arg%5) * time.Second)
				continue
			}
			if got != want {
				t.Fatalf("op %d (%d, %d): got %s, want %s", i/2, op, arg, got, want)
			}
		}
	})
}

type modelParty struct {
	name  string
	seats int64
}

func FuzzWaitlist(f *testing.F) {
	f.Add([]byte{0, 9, 0, 18, 0, 27, 1, 2, 2, 4, 3, 1, 4, 2, 5, 0})
	f.Add([]byte{0, 1, 0, 2, 0, 3, 0, 4, 2, 6, 2, 6, 2, 6, 2, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		w := queues.NewWaitlist(embedded.New(zlite.New()), "w")
		var model []modelParty // arrival order
		find := func(name string) int {
			return slices.IndexFunc(model, func(p modelParty) bool { return p.name == name })
		}
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%6, ops[i+1]
			name := fmt.Sprint("p", arg%8)
			size := int64(arg/8%7) - 1 // -1 … 5: includes bad sizes
			var got, want string
			switch op {
			case 0:
				got = fmt.Sprint(w.Add(ctx, name, size))
				switch {
				case size < 1:
					want = fmt.Sprint(&queues.Error{Type: "waitlist", Queue: "w", Op: "add", ID: name, Err: queues.ErrBadSeats})
				case find(name) >= 0:
					want = fmt.Sprint(&queues.Error{Type: "waitlist", Queue: "w", Op: "add", ID: name, Err: queues.ErrDuplicate})
				default:
					model = append(model, modelParty{name, size})
					want = "<nil>"
				}
			case 1, 2:
				m := queues.Match(op - 1)
				p, ok, err := w.Seat(ctx, size, m)
				got = fmt.Sprint(p, ok, err)
				if size < 1 {
					want = fmt.Sprint(queues.Party{}, false, &queues.Error{Type: "waitlist", Queue: "w", Op: "seat", Err: queues.ErrBadSeats})
					break
				}
				k := slices.IndexFunc(model, func(p modelParty) bool {
					return p.seats == size || (m == queues.Fits && p.seats <= size)
				})
				if k < 0 {
					want = fmt.Sprint(queues.Party{}, false, nil)
				} else {
					want = fmt.Sprint(queues.Party{Name: model[k].name, Seats: model[k].seats}, true, nil)
					model = slices.Delete(model, k, k+1)
				}
			case 3:
				ok, err := w.Leave(ctx, name)
				got = fmt.Sprint(ok, err)
				k := find(name)
				if k >= 0 {
					model = slices.Delete(model, k, k+1)
				}
				want = fmt.Sprint(k >= 0, nil)
			case 4:
				pos, ok, err := w.Position(ctx, name)
				got = fmt.Sprint(pos, ok, err)
				k := find(name)
				want = fmt.Sprint(k+1, k >= 0, nil)
			default:
				l, err := w.Items(ctx, 0, math.MaxInt64)
				got = fmt.Sprint(l, err)
				var ps []queues.Party
				for _, p := range model {
					ps = append(ps, queues.Party{Name: p.name, Seats: p.seats})
				}
				if ps == nil {
					ps = []queues.Party{}
				}
				want = fmt.Sprint(ps, nil)
			}
			if got != want {
				t.Fatalf("op %d (%d, %d): got %s, want %s", i/2, op, arg, got, want)
			}
		}
	})
}
