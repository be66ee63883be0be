package intset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// model is the reference a Set is compared with: a map for membership, a sorted
// slice for order, and the width Redis's rules give (the widest member added since
// the set was last empty).
type model struct {
	has    map[int64]bool
	sorted []int64
	width  int
}

func newModel() *model { return &model{has: map[int64]bool{}, width: 2} }

func (m *model) add(v int64) bool {
	if m.has[v] {
		return false
	}
	m.has[v] = true
	i, _ := slices.BinarySearch(m.sorted, v)
	m.sorted = slices.Insert(m.sorted, i, v)
	m.width = max(m.width, widthOf(v))
	return true
}

func (m *model) remove(v int64) bool {
	if !m.has[v] {
		return false
	}
	delete(m.has, v)
	i, _ := slices.BinarySearch(m.sorted, v)
	m.sorted = slices.Delete(m.sorted, i, i+1)
	if len(m.sorted) == 0 {
		m.width = 2
	}
	return true
}

// boundaries are the values around which the width changes, and the int64 ends.
var boundaries = []int64{
	0, 1, -1,
	math.MaxInt16, math.MaxInt16 + 1, math.MinInt16, math.MinInt16 - 1,
	math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1,
	math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1,
}

// op is one operation on a Set and its model; arg picks the value or index.
type op struct {
	kind int
	v    int64
	i    int
}

const numKinds = 12

func (o op) String() string {
	names := [numKinds]string{"Add", "Remove", "Has", "At", "RemoveAt", "Random", "Min", "Max", "All", "Clone", "Len", "AddRun"}
	return fmt.Sprintf("%s(v=%d, i=%d)", names[o.kind], o.v, o.i)
}

// apply runs o on s and m, compares the results and the state, and checks the
// invariants; r serves Random.
func apply(s *Set, m *model, o op, r *rand.Rand) error {
	switch o.kind {
	case 0:
		if got, want := s.Add(o.v), m.add(o.v); got != want {
			return fmt.Errorf("s.Add(%d) = %v; want %v", o.v, got, want)
		}
	case 1:
		if got, want := s.Remove(o.v), m.remove(o.v); got != want {
			return fmt.Errorf("s.Remove(%d) = %v; want %v", o.v, got, want)
		}
	case 2:
		if got, want := s.Has(o.v), m.has[o.v]; got != want {
			return fmt.Errorf("s.Has(%d) = %v; want %v", o.v, got, want)
		}
	case 3:
		if len(m.sorted) == 0 {
			break
		}
		i := o.i % len(m.sorted)
		if got, want := s.At(i), m.sorted[i]; got != want {
			return fmt.Errorf("s.At(%d) = %d; want %d", i, got, want)
		}
	case 4:
		if len(m.sorted) == 0 {
			break
		}
		i := o.i % len(m.sorted)
		v := m.sorted[i]
		s.RemoveAt(i)
		m.remove(v)
	case 5:
		v, ok := s.Random(r)
		if ok != (len(m.sorted) > 0) || ok && !m.has[v] || !ok && v != 0 {
			return fmt.Errorf("s.Random(r) = %d, %v; want a member and %v", v, ok, len(m.sorted) > 0)
		}
	case 6:
		v, ok := s.Min()
		if want := len(m.sorted) > 0; ok != want || ok && v != m.sorted[0] || !ok && v != 0 {
			return fmt.Errorf("s.Min() = %d, %v; want %v (members %v)", v, ok, want, m.sorted)
		}
	case 7:
		v, ok := s.Max()
		if want := len(m.sorted) > 0; ok != want || ok && v != m.sorted[len(m.sorted)-1] || !ok && v != 0 {
			return fmt.Errorf("s.Max() = %d, %v; want %v (members %v)", v, ok, want, m.sorted)
		}
	case 8:
		if got := slices.Collect(s.All()); !slices.Equal(got, m.sorted) {
			return fmt.Errorf("s.All() = %v; want %v", got, m.sorted)
		}
	case 9:
		c := s.Clone()
		if err := c.check(); err != nil {
			return fmt.Errorf("s.Clone(): %v", err)
		}
		if got := slices.Collect(c.All()); !slices.Equal(got, m.sorted) {
			return fmt.Errorf("s.Clone().All() = %v; want %v", got, m.sorted)
		}
		if got := c.Width(); got != m.width {
			return fmt.Errorf("s.Clone().Width() = %d; want %d", got, m.width)
		}
		// Changing the clone must not change s.
		c.Add(o.v)
		c.Remove(m.sorted0())
	case 10:
		if got, want := s.Len(), len(m.sorted); got != want {
			return fmt.Errorf("s.Len() = %d; want %d", got, want)
		}
	case 11:
		// A run of ascending Adds, as SADD k 1 2 3 ... does.
		for k := range int64(o.i%40 + 1) {
			v := o.v + k
			if v < o.v {
				break // overflowed
			}
			if got, want := s.Add(v), m.add(v); got != want {
				return fmt.Errorf("s.Add(%d) = %v; want %v", v, got, want)
			}
		}
	}
	if err := s.check(); err != nil {
		return err
	}
	if got, want := s.Len(), len(m.sorted); got != want {
		return fmt.Errorf("s.Len() = %d; want %d", got, want)
	}
	if got, want := s.Width(), m.width; got != want {
		return fmt.Errorf("s.Width() = %d; want %d", got, want)
	}
	if got, min := s.MemoryUsage(), 24+len(m.sorted)*m.width; got < min {
		return fmt.Errorf("s.MemoryUsage() = %d; want at least %d", got, min)
	}
	return nil
}

// sorted0 returns the smallest member, or 0.
func (m *model) sorted0() int64 {
	if len(m.sorted) == 0 {
		return 0
	}
	return m.sorted[0]
}

// randomValue returns a value likely to collide with earlier ones or to sit at a
// width boundary.
func randomValue(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return boundaries[r.IntN(len(boundaries))]
	case 1:
		return boundaries[r.IntN(len(boundaries))] + int64(r.IntN(7)) - 3 // may wrap: fine
	case 2:
		return int64(r.IntN(64)) - 32
	case 3:
		return int64(r.IntN(1<<17)) - 1<<16
	case 4:
		return int64(int32(r.Uint32()))
	}
	return int64(r.Uint64())
}

// randomOp returns an operation, with sizes kept in check by the removal bias.
func randomOp(r *rand.Rand, removeBias int) op {
	kinds := []int{0, 0, 0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	for range removeBias {
		kinds = append(kinds, 1, 4)
	}
	return op{kind: kinds[r.IntN(len(kinds))], v: randomValue(r), i: r.IntN(1 << 20)}
}

// testSeed returns the seed from INTSET_SEED, or one from the clock.
func testSeed(t *testing.T) uint64 {
	if env := os.Getenv("INTSET_SEED"); env != "" {
		seed, err := strconv.ParseUint(env, 10, 64)
		if err != nil {
			t.Fatalf("INTSET_SEED=%q: %v", env, err)
		}
		return seed
	}
	return uint64(time.Now().UnixNano())
}

func TestModel(t *testing.T) {
	seed := testSeed(t)
	t.Logf("seed %d (rerun with INTSET_SEED=%d)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 0x1257))
	sequences, steps := 200, 600
	if testing.Short() || raceEnabled {
		sequences = 40
	}
	for seq := range sequences {
		s, m := New(), newModel()
		if seq%2 == 1 {
			s = new(Set) // the zero value
		}
		bias := seq % 4 // 0: sets grow to a few hundred members; 3: stay small
		var hist []op
		for step := range steps {
			o := randomOp(r, bias*3)
			hist = append(hist, o)
			if err := apply(s, m, o, r); err != nil {
				if len(hist) > 20 {
					hist = hist[len(hist)-20:]
				}
				t.Fatalf("seed %d (INTSET_SEED=%d), sequence %d, step %d: %s: %v\nlast ops: %v",
					seed, seed, seq, step, o, err, hist)
			}
		}
	}
}
