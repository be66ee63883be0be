package inspector

import (
	"context"
	"time"
)

// Queue is what the inspector reads from one queue. The adapters in this package
// ([FIFO], [CallQueue], [Reliable], …) implement it for the types of package queues;
// any other queue can implement it too.
//
// Implementations must be safe for concurrent use: the [Handler] calls them from its
// request goroutines and from [Handler.Run].
type Queue interface {
	// Name is the queue's name, unique within one Handler; it appears in URLs.
	Name() string
	// Kind says which kind of queue it is, and so which columns its items have.
	Kind() Kind
	// Stats returns the queue's current figures.
	Stats(ctx context.Context) (Stats, error)
	// Items returns at most count items in serving order (the next one served
	// first, at Position 1), skipping the first offset; offset and count are ≥ 0.
	// A queue that cannot list its items returns an error matching
	// errors.ErrUnsupported.
	Items(ctx context.Context, offset, count int64) ([]Item, error)
}

// Canceler is implemented by a [Queue] whose waiting items can be removed. Cancel
// removes the item with the given [Item.ID] and reports whether it was there.
type Canceler interface {
	Cancel(ctx context.Context, id string) (bool, error)
}

// LeaseRequeuer is implemented by a [Queue] with leases (at-least-once delivery).
// RequeueExpired puts the item with the given [Item.ID] back in the queue if its
// lease has expired, and reports whether it did.
type LeaseRequeuer interface {
	RequeueExpired(ctx context.Context, id string) (bool, error)
}

// DeadMover is implemented by a [Queue] with a dead-letter list. MoveDeadBack puts
// the dead item with the given [Item.ID] back in the queue and reports whether it
// was there.
type DeadMover interface {
	MoveDeadBack(ctx context.Context, id string) (bool, error)
}

// Pauser is a [Queue] that can be paused and resumed: while paused, consumers are
// served nothing, producers still push. Pause and Resume report whether they changed
// the state; Paused reads it.
type Pauser interface {
	Pause(ctx context.Context) (bool, error)
	Resume(ctx context.Context) (bool, error)
	Paused(ctx context.Context) (bool, error)
}

// Kind is the kind of a [Queue]: it picks the columns of its items table.
type Kind string

// The kinds of the queue types of package queues.
const (
	KindFIFO      Kind = "fifo"      // plain first-in first-out list
	KindLevels    Kind = "levels"    // a few named priority levels
	KindPriority  Kind = "priority"  // any number of priorities
	KindCall      Kind = "call"      // call-centre queue: priority, then arrival
	KindDelayed   Kind = "delayed"   // items become available at a due time
	KindScheduler Kind = "scheduler" // future jobs moved to work queues when due
	KindReliable  Kind = "reliable"  // at-least-once delivery with leases
	KindWaitlist  Kind = "waitlist"  // restaurant waitlist
)

// Stats is a snapshot of one queue's figures. Fields a queue does not keep are
// zero, and the optional groups are nil.
type Stats struct {
	Depth    int64   // items waiting to be served (for a delayed queue, due or not)
	Levels   []Level // depth per level, priority or party size, in serving order
	Due      int64   // waiting items already due, for queues with due times
	InFlight int64   // items handed out and not yet acknowledged (leases)
	Dead     int64   // items in the dead-letter list
	// Oldest is how long the oldest waiting item has waited (for a delayed queue:
	// since the earliest job became due); meaningful only when HasOldest, which is
	// false for queues that record no times.
	Oldest    time.Duration
	HasOldest bool
	Activity  *Activity // nil: the queue keeps no counters (no throughput is shown)
	Lateness  *Lateness // nil: the queue has no due times
	Retrying  int64     // items waiting out a retry delay before their next delivery
	Paused    bool      // the queue is paused: consumers get nothing until it resumes
}

// Level is the depth of one level or priority of a queue.
type Level struct {
	Name  string
	Depth int64
}

// Activity holds a queue's blocked consumers and its counters since the queue
// value was created (in this process). The counters only grow; the inspector
// derives rates from their differences between samples.
type Activity struct {
	Blocked  int64 `json:"blocked"` // consumers blocked waiting for an item now
	Enqueued int64 `json:"enqueued"`
	Dequeued int64 `json:"dequeued"`
	Acked    int64 `json:"acked"`
	Requeued int64 `json:"requeued"`
	Expired  int64 `json:"expired"` // leases that expired
	// DeadLettered counts the elements moved to the dead-letter list after their
	// last delivery failed (a reliable queue with queues.WithMaxDeliveries).
	DeadLettered int64 `json:"dead_lettered"`
	Cancelled    int64 `json:"cancelled"` // items removed from the middle
}

// Lateness is the distribution of how late due items were delivered (delivery time
// minus due time) for a delayed queue or a scheduler.
type Lateness struct {
	Count         int64 // deliveries measured
	P50, P99, Max time.Duration
}

// ItemState is where an item is in its life.
type ItemState string

// The states of an item.
const (
	StateWaiting   ItemState = "waiting"   // in the queue, to be served in its turn
	StateScheduled ItemState = "scheduled" // waiting for its due time
	StateLeased    ItemState = "leased"    // handed out, lease running
	StateExpired   ItemState = "expired"   // handed out, lease expired, not yet requeued
	StateRetrying  ItemState = "retrying"  // failed, waiting out a retry delay until Due
	StateDead      ItemState = "dead"      // in the dead-letter list
)

// Item is one item of a queue as the inspector shows it. Fields the queue's
// [Kind] does not have are zero.
type Item struct {
	ID          string    // identifies the item in actions (Cancel, RequeueExpired, MoveDeadBack)
	Value       string    // the payload
	Position    int64     // place in serving order: 1 is served next
	State       ItemState // "": [StateScheduled] if Due is in the future, else [StateWaiting]
	Level       string    // the level, for [KindLevels]
	Group       string    // the rate-limit group, for [KindReliable]; "" for none
	Priority    float64   // for [KindPriority] and [KindCall]
	Enqueued    time.Time // when it arrived (the wait time is now minus this); zero if unknown
	Due         time.Time // for [KindDelayed] and [KindScheduler], and a retrying item's next attempt
	LeaseExpiry time.Time // for leased and expired items
	Attempt     int64     // the delivery's number, 1 for the first; 0 if the queue keeps none
	LastError   string    // why the last failed delivery failed; "" if none did or none said
	Died        time.Time // when a dead item died; zero if unknown
}

// DeadLetters is a [Queue] with a dead-letter list it can page through, retry whole
// and delete from: the dead-letter page and its actions. Retrying one dead item is
// [DeadMover].
type DeadLetters interface {
	// DeadItems returns up to count dead items from offset, the earliest to die
	// first, with State [StateDead]; Position is the place in that list.
	DeadItems(ctx context.Context, offset, count int64) ([]Item, error)
	// RetryAllDead moves every dead item back to the queue and says how many.
	RetryAllDead(ctx context.Context) (int64, error)
	// DeleteDead drops the dead item id for good and reports whether it was there.
	DeleteDead(ctx context.Context, id string) (bool, error)
}
