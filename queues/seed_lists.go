package queues

// The classic list recipes (a FIFO is LPUSH + BRPOP on one list, levels are "BRPOP a
// b 0" over several) use the very commands of [FIFO] and [Levels]; only their key
// names differ. NewClassicFIFO and NewClassicLevels open lists named by the caller,
// so that redis-cli, Ruby or PHP code and a Go service share them.

// NewClassicFIFO returns a [FIFO] over the plain list key, named verbatim (no hash
// tag, no suffix), in the classic layout: producers LPUSH, consumers BRPOP, so the
// oldest element is at the right end. Elements other code pushed with LPUSH are
// popped here in their order, and elements pushed here are popped by other code's
// BRPOP or RPOP in theirs. Every [FIFO] method works as documented there: Pop blocks
// with BRPOP on the key, and an element goes to exactly one consumer, Go or not. The
// layout loses nothing the recipe has; it has no acknowledgement, so delivery is at
// most once (use [Reliable] where that matters). The queue's name in errors and
// [Stats] is key. It uses the option [WithStats]. It panics if key is empty. The
// complexity is O(1).
func NewClassicFIFO(b Backend, key string, opts ...Option) *FIFO {
	checkName("ClassicFIFO", key)
	return &FIFO{b: b, name: key, key: key, st: newCounters(newConfig(opts), false), at: where{"fifo", key}}
}

// NewClassicLevels returns a [Levels] queue over the plain lists keys, highest
// priority first, each named verbatim and each its own level (the level's name is
// its key): the classic "LPUSH a …", "BRPOP a b 0" recipe. [Levels.Pop] is that
// multi-key BRPOP, so an element of b is served only while a is empty, whoever pushed
// it. The queue's name in errors and [Stats] is the keys joined by ",".
//
// On a Redis Cluster the multi-key BRPOP needs every key in one slot: name the lists
// with a common hash tag ("{jobs}a", "{jobs}b"); plain names like the recipe's work
// on a single node (or Sentinel) only, and a cluster refuses the pop with CROSSSLOT.
//
// It uses the option [WithStats]. It panics if no key is given, a key is empty or a
// key repeats. The complexity is O(len(keys)).
func NewClassicLevels(b Backend, keys []string, opts ...Option) *Levels {
	if len(keys) == 0 {
		panic("queues: NewClassicLevels without keys")
	}
	name := ""
	for i, k := range keys {
		checkName("ClassicLevels", k)
		if i > 0 {
			name += ","
		}
		name += k
	}
	q := &Levels{b: b, name: name, st: newCounters(newConfig(opts), false), levels: append([]string(nil), keys...), index: make(map[string]int, len(keys)), at: where{"levels", name}}
	for i, k := range keys {
		if _, dup := q.index[k]; dup {
			panic("queues: NewClassicLevels with key " + k + " twice")
		}
		q.index[k] = i
		q.keys = append(q.keys, k)
	}
	return q
}
