package list

import "iter"

// List is a Redis list: a sequence of strings with cheap pushes and pops at both ends.
// The zero value is an empty list ready to use.
//
// A List is not safe for concurrent use and holds no lock: the caller (the keyspace)
// serialises access.
type List struct {
	items []string
}

// New returns an empty list.
func New() *List { return &List{} }

// Len returns the number of items (LLEN). The complexity is O(1).
func (l *List) Len() int { return len(l.items) }

// PushFront inserts values at the head one after the other, as LPUSH does:
// PushFront("a", "b", "c") leaves the list starting c, b, a.
func (l *List) PushFront(values ...string) {
	for _, v := range values {
		l.items = append([]string{v}, l.items...)
	}
}

// PushBack appends values at the tail in order (RPUSH).
func (l *List) PushBack(values ...string) { l.items = append(l.items, values...) }

// PopFront removes and returns the head (LPOP); false when the list is empty.
func (l *List) PopFront() (string, bool) {
	if len(l.items) == 0 {
		return "", false
	}
	v := l.items[0]
	l.items = l.items[1:]
	return v, true
}

// PopBack removes and returns the tail (RPOP); false when the list is empty.
func (l *List) PopBack() (string, bool) {
	if len(l.items) == 0 {
		return "", false
	}
	v := l.items[len(l.items)-1]
	l.items = l.items[:len(l.items)-1]
	return v, true
}

// PopFrontN removes and returns up to count items from the head (LPOP key count).
func (l *List) PopFrontN(count int) []string {
	var out []string
	for range count {
		v, ok := l.PopFront()
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out
}

// PopBackN removes and returns up to count items from the tail (RPOP key count).
func (l *List) PopBackN(count int) []string {
	var out []string
	for range count {
		v, ok := l.PopBack()
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out
}

func (l *List) abs(i int) (int, bool) {
	if i < 0 {
		i += len(l.items)
	}
	return i, i >= 0 && i < len(l.items)
}

// Index returns the item at i (LINDEX); negative i counts from the tail.
func (l *List) Index(i int) (string, bool) {
	i, ok := l.abs(i)
	if !ok {
		return "", false
	}
	return l.items[i], true
}

// Set replaces the item at i (LSET).
func (l *List) Set(i int, v string) error {
	i, ok := l.abs(i)
	if !ok {
		return ErrIndexOutOfRange
	}
	l.items[i] = v
	return nil
}

func (l *List) clamp(start, stop int) (int, int, bool) {
	n := len(l.items)
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, 0, false
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop, true
}

// Range returns the items from start to stop inclusive (LRANGE).
func (l *List) Range(start, stop int) []string {
	start, stop, ok := l.clamp(start, stop)
	if !ok {
		return []string{}
	}
	return append([]string{}, l.items[start:stop+1]...)
}

// Insert inserts value before or after the first pivot (LINSERT).
func (l *List) Insert(before bool, pivot, value string) int {
	for i, v := range l.items {
		if v == pivot {
			if !before {
				i++
			}
			l.items = append(l.items[:i], append([]string{value}, l.items[i:]...)...)
			return len(l.items)
		}
	}
	return -1
}

// Remove removes occurrences of value (LREM).
func (l *List) Remove(count int, value string) int {
	removed := 0
	if count >= 0 {
		out := l.items[:0]
		for _, v := range l.items {
			if v == value && (count == 0 || removed < count) {
				removed++
				continue
			}
			out = append(out, v)
		}
		l.items = out
		return removed
	}
	for i := len(l.items) - 1; i >= 0 && removed < -count; i-- {
		if l.items[i] == value {
			l.items = append(l.items[:i], l.items[i+1:]...)
			removed++
		}
	}
	return removed
}

// Trim keeps only start..stop (LTRIM).
func (l *List) Trim(start, stop int) {
	start, stop, ok := l.clamp(start, stop)
	if !ok {
		l.items = nil
		return
	}
	l.items = append([]string{}, l.items[start:stop+1]...)
}

// Pos returns the indexes of value (LPOS).
func (l *List) Pos(value string, rank, count, maxLen int) ([]int, error) {
	if err := ValidatePos(rank, count, maxLen); err != nil {
		return nil, err
	}
	var out []int
	n := len(l.items)
	skip := rank
	if rank < 0 {
		skip = -rank
	}
	skip--
	for k := 0; k < n && (maxLen == 0 || k < maxLen); k++ {
		i := k
		if rank < 0 {
			i = n - 1 - k
		}
		if l.items[i] != value {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, i)
		if count != 0 && len(out) == count {
			break
		}
	}
	return out, nil
}

// Move pops from src and pushes onto dst (LMOVE).
func Move(src, dst *List, srcFront, dstFront bool) (string, bool) {
	var v string
	var ok bool
	if srcFront {
		v, ok = src.PopFront()
	} else {
		v, ok = src.PopBack()
	}
	if !ok {
		return "", false
	}
	if dstFront {
		dst.PushFront(v)
	} else {
		dst.PushBack(v)
	}
	return v, true
}

// All iterates head to tail.
func (l *List) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, v := range l.items {
			if !yield(i, v) {
				return
			}
		}
	}
}

// Backward iterates tail to head.
func (l *List) Backward() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := len(l.items) - 1; i >= 0; i-- {
			if !yield(i, l.items[i]) {
				return
			}
		}
	}
}
