// Package pubsub is Redis's Pub/Sub: a [Hub] of channels, patterns and shard
// channels, and [Subscriber]s that receive what is published to them, in the order
// it was published. It is the engine behind zlite's DB.Publish and DB.Subscribe
// and behind zlite-server's SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE, PUBLISH, SPUBLISH
// and PUBSUB; it knows nothing of keys or connections.
//
//	h := pubsub.NewHub()
//	s := h.Subscriber()
//	s.Subscribe("news")              // SUBSCRIBE news → 1
//	h.Publish("news", "hello")       // PUBLISH news hello → 1
//	m, _ := s.Receive(ctx)           // {Message news hello}
//	s.Close()
//
// # Semantics, as Redis
//
//   - [Hub.Publish] delivers to every subscriber of the channel, then to every
//     subscriber of each pattern that matches it (once per matching pattern, as
//     a "pmessage"), and returns how many deliveries it made; [Hub.SPublish]
//     delivers to the subscribers of the shard channel only (no patterns).
//   - Patterns are Redis's glob syntax (stringmatchlen): '*', '?', '[a-z]',
//     '[^x]', '\' escapes.
//   - A subscriber's counts are Redis's: Subscribe, PSubscribe and their
//     opposites report channels plus patterns after each step; SSubscribe and
//     SUnsubscribe report shard channels. Subscribing twice to a channel is one
//     subscription.
//   - Order: a Hub delivers one message at a time, so every subscriber sees the
//     messages it receives in one global order, the order of the Publish calls.
//   - [Hub.Channels] and its shard twin list the channels with at least one
//     subscriber, in no particular order (Redis's dict order is no order either);
//     [Hub.NumPat] counts distinct patterns.
//
// # Slow subscribers
//
// A subscriber's messages wait in its own queue until it takes them ([Subscriber.Receive],
// [Subscriber.Drain]); Publish never waits for a subscriber. The queue is bounded as
// Redis bounds a Pub/Sub client's output buffer (client-output-buffer-limit pubsub
// 32mb 8mb 60, [DefaultLimits]): a subscriber whose queue passes the hard limit, or
// stays above the soft limit for the soft period (checked as messages arrive), is
// closed with [ErrSlow] and loses its subscriptions and what it had not taken, so
// that one stalled reader cannot grow the process without bound. A message counts
// for the bytes of its channel, pattern and payload plus 32 (about its RESP
// encoding).
//
// # Concurrency
//
// A Hub and its Subscribers are safe for concurrent use. Publish and the
// subscription calls are serialised by the hub's mutex; a Subscriber's queue has
// its own, so taking messages never waits for a publisher's walk over the
// subscribers of another channel.
//
// # Costs
//
// Publish is O(subscribers of the channel + patterns × pattern match): every
// pattern is matched against the channel, as in Redis. Subscribe and Unsubscribe
// are O(1) per channel or pattern; Channels is O(channels). A queued message costs
// its Message (56 bytes) in the queue; its strings are shared with the publisher's.
//
// # Differences from Redis
//
// Redis has one Pub/Sub per server, across its 16 databases; a zlite DB has its own
// Hub, and zlite-server uses the Hub of the keyspace it starts with at number 0 for
// every connection, so that a program that embeds that DB publishes to and receives
// from the server's clients.
package pubsub
