package queues

import (
	"errors"
	"strings"
)

// Errors for bad input. A call that fails with one of them has changed nothing. The
// queues return them wrapped in an [*Error] that names the queue, the operation and
// the item; match them with [errors.Is].
var (
	// ErrEmptyID: an id, name or payload that must not be empty was empty.
	ErrEmptyID = errors.New("queues: empty id")
	// ErrBadPriority: a priority was NaN or infinite.
	ErrBadPriority = errors.New("queues: priority is NaN or infinite")
	// ErrBadSeats: a party or table size below 1.
	ErrBadSeats = errors.New("queues: seats must be at least 1")
	// ErrDuplicate: the id is already queued, or the [Unique] key of a
	// [Reliable.Push] is held by an element still in the queue.
	ErrDuplicate = errors.New("queues: id already queued")
	// ErrUnknownLevel: a level not given to [NewLevels].
	ErrUnknownLevel = errors.New("queues: unknown level")
	// ErrBadJob: a scheduler job whose arguments are not valid JSON or that names no
	// function.
	ErrBadJob = errors.New("queues: malformed job")
	// ErrNoQueue: a scheduler job that names no target queue.
	ErrNoQueue = errors.New("queues: job names no target queue")
	// ErrBadDuration: a negative or zero duration where a positive one is needed.
	ErrBadDuration = errors.New("queues: duration must be positive")
	// ErrBadRange: a negative offset or count for a page of items.
	ErrBadRange = errors.New("queues: offset and count must not be negative")
)

// Error is the error a queue returns for bad input: which queue, which operation,
// which item or level, and the sentinel that says what was wrong (Err, returned by
// Unwrap, so that errors.Is(err, [ErrDuplicate]) holds). Errors of the backend (a
// lost connection, a cancelled ctx) are returned as they are, not wrapped.
//
// Its text reads
//
//	queues: priority "jobs": push: priority is NaN or infinite
//	queues: callqueue "support": enqueue "c-17": id already queued
//	queues: levels "tickets": push level "urgent": unknown level
type Error struct {
	Type  string // the queue type, as in [Stats].Type: "fifo", "priority", …
	Queue string // the queue's name
	Op    string // the method, in lower case: "push", "enqueue", "items", …
	ID    string // the item's id or name, when the call named one
	Level string // the level, when the call named one ([Levels])
	Err   error  // the sentinel: [ErrEmptyID], [ErrDuplicate], …
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("queues: ")
	b.WriteString(e.Type)
	b.WriteString(` "`)
	b.WriteString(e.Queue)
	b.WriteString(`": `)
	b.WriteString(e.Op)
	if e.ID != "" {
		b.WriteString(` "`)
		b.WriteString(e.ID)
		b.WriteString(`"`)
	}
	if e.Level != "" {
		b.WriteString(` level "`)
		b.WriteString(e.Level)
		b.WriteString(`"`)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "queues: "))
	}
	return b.String()
}

// Unwrap returns the sentinel, for [errors.Is].
func (e *Error) Unwrap() error { return e.Err }

// where names a queue in the errors it returns.
type where struct{ typ, name string }

// fail wraps the sentinel err for operation op on the item id ("" for none).
func (w where) fail(op, id string, err error) error {
	return &Error{Type: w.typ, Queue: w.name, Op: op, ID: id, Err: err}
}

// failLevel wraps the sentinel err for operation op at level.
func (w where) failLevel(op, level string, err error) error {
	return &Error{Type: w.typ, Queue: w.name, Op: op, Level: level, Err: err}
}

// checkRange returns [ErrBadRange], wrapped, for a negative offset or count.
func (w where) checkRange(op string, offset, count int64) error {
	if offset < 0 || count < 0 {
		return w.fail(op, "", ErrBadRange)
	}
	return nil
}
