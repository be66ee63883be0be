package queues

import "errors"

// Errors for bad input. A call that returns one of them has changed nothing.
var (
	// ErrEmptyID: an id, name or payload that must not be empty was empty.
	ErrEmptyID = errors.New("queues: empty id")
	// ErrBadPriority: a priority was NaN or infinite.
	ErrBadPriority = errors.New("queues: priority is NaN or infinite")
	// ErrBadSeats: a party or table size below 1.
	ErrBadSeats = errors.New("queues: seats must be at least 1")
	// ErrDuplicate: the id is already queued.
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
