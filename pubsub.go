package zlite

import (
	"context"

	"github.com/zlite/zlite/pubsub"
)

// Pub/Sub: the DB's channels, patterns and shard channels (package pubsub has the
// semantics, the bounds on a slow subscriber and the costs). They are not keys:
// FLUSHALL, snapshots and the log leave them alone, and the messages of one
// Publish reach the subscribers of this DB only. zlite-server publishes into the
// Pub/Sub of the keyspace it starts with at number 0, so a program embedding that
// DB talks with the server's subscribers. Keyspace events (notify.go) are published
// here too, unless [DB.SetEventHub] names another hub.

// Publish is PUBLISH: it sends message to the subscribers of channel and of every
// pattern that matches it, and returns how many received it. Errors: ctx's.
// O(subscribers + patterns).
func (db *DB) Publish(ctx context.Context, channel, message string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return int64(db.hub.Publish(channel, message)), nil
}

// SPublish is SPUBLISH: [DB.Publish] to the subscribers of a shard channel, which
// patterns never match. O(subscribers).
func (db *DB) SPublish(ctx context.Context, channel, message string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return int64(db.hub.SPublish(channel, message)), nil
}

// Subscribe is SUBSCRIBE: it returns a subscriber of the channels, which receives
// what is published to them from now on (Receive, Messages) until it is closed;
// it may subscribe to more, and to patterns. The caller must Close it. ctx is not
// kept: it bounds the Receive calls it is given. O(len(channels)).
func (db *DB) Subscribe(ctx context.Context, channels ...string) *pubsub.Subscriber {
	s := db.hub.Subscriber()
	if len(channels) > 0 {
		s.Subscribe(channels...)
	}
	return s
}

// PSubscribe is PSUBSCRIBE: [DB.Subscribe] to the channels that match the patterns
// (Redis's glob syntax), whose messages arrive as pubsub.KindPMessage.
// O(len(patterns)).
func (db *DB) PSubscribe(ctx context.Context, patterns ...string) *pubsub.Subscriber {
	s := db.hub.Subscriber()
	if len(patterns) > 0 {
		s.PSubscribe(patterns...)
	}
	return s
}

// SSubscribe is SSUBSCRIBE: [DB.Subscribe] to shard channels (SPublish).
// O(len(channels)).
func (db *DB) SSubscribe(ctx context.Context, channels ...string) *pubsub.Subscriber {
	s := db.hub.Subscriber()
	if len(channels) > 0 {
		s.SSubscribe(channels...)
	}
	return s
}

// PubSub returns the DB's Pub/Sub hub: PUBSUB's introspection (Channels, NumSub,
// NumPat), the subscribers' bounds (SetLimits), and subscribers subscribed to
// nothing yet. O(1).
func (db *DB) PubSub() *pubsub.Hub { return db.hub }
