package pubsub

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/zlite/zlite/internal/glob"
)

// Kind says how a [Message] reached its subscriber, as the first word of Redis's
// push: "message", "pmessage" or "smessage".
type Kind uint8

// The kinds of message.
const (
	KindMessage  Kind = iota + 1 // published to a channel the subscriber subscribed to
	KindPMessage                 // published to a channel that one of its patterns matches
	KindSMessage                 // published to a shard channel it subscribed to
)

// String is the kind's word in Redis's push: "message", "pmessage", "smessage".
func (k Kind) String() string {
	switch k {
	case KindMessage:
		return "message"
	case KindPMessage:
		return "pmessage"
	case KindSMessage:
		return "smessage"
	}
	return "unknown"
}

// Message is one message as a subscriber receives it: Pattern is the pattern that
// matched for a [KindPMessage], empty otherwise.
type Message struct {
	Kind                      Kind
	Pattern, Channel, Payload string
}

// size is what a message counts for in its subscriber's queue (see the package
// doc).
func (m *Message) size() int64 { return int64(len(m.Pattern)+len(m.Channel)+len(m.Payload)) + 32 }

// Limits bound a subscriber's queue in bytes: past Hard, or above Soft for SoftFor,
// the subscriber is closed with [ErrSlow]. A zero Hard or Soft is no limit.
type Limits struct {
	Hard, Soft int64
	SoftFor    time.Duration
}

// DefaultLimits are Redis's client-output-buffer-limit pubsub defaults: 32 MiB, and
// 8 MiB for 60 seconds.
var DefaultLimits = Limits{Hard: 32 << 20, Soft: 8 << 20, SoftFor: time.Minute}

var (
	// ErrClosed is what a closed subscriber's Receive returns.
	ErrClosed = errors.New("pubsub: subscriber closed")
	// ErrSlow is what Receive returns once the subscriber was closed for letting
	// its queue pass its [Limits] (Redis closes such a client).
	ErrSlow = errors.New("pubsub: subscriber closed for overcoming of output buffer limits")
)

// Hub is a Pub/Sub namespace: its channels, patterns and shard channels and their
// subscribers. The zero value is not usable; see [NewHub].
type Hub struct {
	mu       sync.Mutex
	channels map[string]*members
	patterns map[string]*members
	shards   map[string]*members
	limits   Limits
	now      func() time.Time
}

// members is the subscribers of one channel or pattern, each once.
type members struct {
	subs []*Subscriber
	at   map[*Subscriber]int // index in subs
}

// NewHub returns an empty hub with [DefaultLimits] and the wall clock. O(1).
func NewHub() *Hub {
	return &Hub{
		channels: map[string]*members{},
		patterns: map[string]*members{},
		shards:   map[string]*members{},
		limits:   DefaultLimits,
		now:      time.Now,
	}
}

// SetLimits bounds the queues of the hub's subscribers from the next message on
// (CONFIG SET client-output-buffer-limit). O(1).
func (h *Hub) SetLimits(l Limits) {
	h.mu.Lock()
	h.limits = l
	h.mu.Unlock()
}

// Limits returns the bounds of the subscribers' queues. O(1).
func (h *Hub) Limits() Limits {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.limits
}

// SetClock makes now the hub's clock, which times the soft limit. O(1).
func (h *Hub) SetClock(now func() time.Time) {
	h.mu.Lock()
	h.now = now
	h.mu.Unlock()
}

// Publish is PUBLISH: it queues payload for every subscriber of channel and of each
// pattern matching it, and returns the number of deliveries. O(subscribers +
// patterns).
func (h *Hub) Publish(channel, payload string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var slow []*Subscriber
	n := 0
	if m := h.channels[channel]; m != nil {
		for _, s := range m.subs {
			slow = s.deliver(Message{Kind: KindMessage, Channel: channel, Payload: payload}, h, slow)
		}
		n += len(m.subs)
	}
	for p, m := range h.patterns {
		if !glob.Match(p, channel) {
			continue
		}
		for _, s := range m.subs {
			slow = s.deliver(Message{Kind: KindPMessage, Pattern: p, Channel: channel, Payload: payload}, h, slow)
		}
		n += len(m.subs)
	}
	h.closeSlow(slow)
	return n
}

// SPublish is SPUBLISH: Publish to the subscribers of shard channel channel, which
// patterns never match. O(subscribers).
func (h *Hub) SPublish(channel, payload string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.shards[channel]
	if m == nil {
		return 0
	}
	var slow []*Subscriber
	for _, s := range m.subs {
		slow = s.deliver(Message{Kind: KindSMessage, Channel: channel, Payload: payload}, h, slow)
	}
	h.closeSlow(slow)
	return len(m.subs)
}

// closeSlow closes the subscribers that passed their limits during a publish.
func (h *Hub) closeSlow(slow []*Subscriber) {
	for _, s := range slow {
		h.drop(s, ErrSlow)
	}
}

// Channels is PUBSUB CHANNELS pattern: the channels with a subscriber that match
// pattern ("*" for all), in no particular order. O(channels).
func (h *Hub) Channels(pattern string) []string { return h.list(h.channels, pattern) }

// ShardChannels is PUBSUB SHARDCHANNELS pattern. O(shard channels).
func (h *Hub) ShardChannels(pattern string) []string { return h.list(h.shards, pattern) }

func (h *Hub) list(of map[string]*members, pattern string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for c := range of {
		if glob.Match(pattern, c) {
			out = append(out, c)
		}
	}
	return out
}

// NumSub is PUBSUB NUMSUB for one channel: its subscribers, patterns aside. O(1).
func (h *Hub) NumSub(channel string) int { return h.count(h.channels, channel) }

// ShardNumSub is PUBSUB SHARDNUMSUB for one shard channel. O(1).
func (h *Hub) ShardNumSub(channel string) int { return h.count(h.shards, channel) }

func (h *Hub) count(of map[string]*members, name string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if m := of[name]; m != nil {
		return len(m.subs)
	}
	return 0
}

// NumPat is PUBSUB NUMPAT: the number of distinct patterns subscribed to. O(1).
func (h *Hub) NumPat() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.patterns)
}

// Counts returns the numbers of channels, patterns and shard channels with a
// subscriber (INFO's pubsub_channels, pubsub_patterns, pubsubshard_channels). O(1).
func (h *Hub) Counts() (channels, patterns, shards int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.channels), len(h.patterns), len(h.shards)
}

// Subscriber returns a new subscriber of h, subscribed to nothing. O(1).
func (h *Hub) Subscriber() *Subscriber {
	return &Subscriber{hub: h, ready: make(chan struct{}, 1)}
}

// add registers s under name in of, once; it reports whether it was new.
func add(of map[string]*members, name string, s *Subscriber) bool {
	m := of[name]
	if m == nil {
		m = &members{at: map[*Subscriber]int{}}
		of[name] = m
	}
	if _, ok := m.at[s]; ok {
		return false
	}
	m.at[s] = len(m.subs)
	m.subs = append(m.subs, s)
	return true
}

// remove unregisters s from name in of; a name left without subscribers goes.
func remove(of map[string]*members, name string, s *Subscriber) {
	m := of[name]
	if m == nil {
		return
	}
	i, ok := m.at[s]
	if !ok {
		return
	}
	last := len(m.subs) - 1
	m.subs[i] = m.subs[last]
	m.at[m.subs[i]] = i
	m.subs[last] = nil
	m.subs = m.subs[:last]
	delete(m.at, s)
	if len(m.subs) == 0 {
		delete(of, name)
	}
}

// drop unsubscribes s from everything and closes it with err, under h.mu.
func (h *Hub) drop(s *Subscriber, err error) {
	for _, set := range []*names{&s.channels, &s.patterns, &s.shards} {
		of := h.registry(set, s)
		for _, name := range set.order {
			remove(of, name, s)
		}
		*set = names{}
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	clear(s.queue)
	s.queue, s.bytes = nil, 0
	s.mu.Unlock()
	s.signal()
}

// registry returns the hub's map that set of s names into.
func (h *Hub) registry(set *names, s *Subscriber) map[string]*members {
	switch set {
	case &s.patterns:
		return h.patterns
	case &s.shards:
		return h.shards
	}
	return h.channels
}

// names is a subscriber's channels, patterns or shard channels, in subscription
// order.
type names struct {
	order []string
	has   map[string]bool
}

func (n *names) add(name string) bool {
	if n.has[name] {
		return false
	}
	if n.has == nil {
		n.has = map[string]bool{}
	}
	n.has[name] = true
	n.order = append(n.order, name)
	return true
}

func (n *names) remove(name string) bool {
	if !n.has[name] {
		return false
	}
	delete(n.has, name)
	n.order = slices.DeleteFunc(n.order, func(s string) bool { return s == name })
	return true
}

// Subscriber receives the messages of the channels, patterns and shard channels it
// subscribes to, from the moment each call to subscribe returns. Its methods are
// safe for concurrent use.
type Subscriber struct {
	hub *Hub
	// channels, patterns and shards are guarded by hub.mu.
	channels, patterns, shards names

	mu    sync.Mutex
	queue []Message
	bytes int64
	over  time.Time // when the queue went above the soft limit; zero while below
	err   error     // set once closed
	ready chan struct{}
}

// Change is one step of a (un)subscribe call: the channel or pattern (empty, for an
// unsubscribe-all that found nothing) and the subscriber's count after it, as
// Redis's reply to each argument.
type Change struct {
	Name  string
	Count int
}

// Subscribe is SUBSCRIBE channels...: each Change's Count is the number of channels
// and patterns after it. O(len(channels)).
func (s *Subscriber) Subscribe(channels ...string) []Change {
	return s.subscribe(&s.channels, channels, s.count)
}

// PSubscribe is PSUBSCRIBE patterns...; counts as Subscribe's.
func (s *Subscriber) PSubscribe(patterns ...string) []Change {
	return s.subscribe(&s.patterns, patterns, s.count)
}

// SSubscribe is SSUBSCRIBE channels...: counts are of shard channels.
func (s *Subscriber) SSubscribe(channels ...string) []Change {
	return s.subscribe(&s.shards, channels, s.shardCount)
}

// Unsubscribe is UNSUBSCRIBE channels... (none: every channel): a Change per channel
// named, or per channel it had, or one with an empty Name when it had none.
func (s *Subscriber) Unsubscribe(channels ...string) []Change {
	return s.unsubscribe(&s.channels, channels, s.count)
}

// PUnsubscribe is PUNSUBSCRIBE patterns...; as Unsubscribe.
func (s *Subscriber) PUnsubscribe(patterns ...string) []Change {
	return s.unsubscribe(&s.patterns, patterns, s.count)
}

// SUnsubscribe is SUNSUBSCRIBE channels...; as Unsubscribe, counting shard
// channels.
func (s *Subscriber) SUnsubscribe(channels ...string) []Change {
	return s.unsubscribe(&s.shards, channels, s.shardCount)
}

func (s *Subscriber) count() int      { return len(s.channels.order) + len(s.patterns.order) }
func (s *Subscriber) shardCount() int { return len(s.shards.order) }

func (s *Subscriber) subscribe(set *names, list []string, count func() int) []Change {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Change, 0, len(list))
	closed := s.Err() != nil
	for _, name := range list {
		if !closed && set.add(name) {
			add(h.registry(set, s), name, s)
		}
		out = append(out, Change{name, count()})
	}
	return out
}

func (s *Subscriber) unsubscribe(set *names, list []string, count func() int) []Change {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(list) == 0 {
		list = slices.Clone(set.order)
		if len(list) == 0 {
			return []Change{{"", count()}}
		}
	}
	out := make([]Change, 0, len(list))
	for _, name := range list {
		if set.remove(name) {
			remove(h.registry(set, s), name, s)
		}
		out = append(out, Change{name, count()})
	}
	return out
}

// Subscriptions returns the numbers of channels, patterns and shard channels s
// is subscribed to (CLIENT LIST's sub, psub, ssub). O(1).
func (s *Subscriber) Subscriptions() (channels, patterns, shards int) {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.channels.order), len(s.patterns.order), len(s.shards.order)
}

// deliver queues m, under the hub's lock, and appends s to slow when it passed its
// limits.
func (s *Subscriber) deliver(m Message, h *Hub, slow []*Subscriber) []*Subscriber {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return slow
	}
	s.queue = append(s.queue, m)
	s.bytes += m.size()
	l, over := h.limits, false
	switch {
	case l.Hard > 0 && s.bytes > l.Hard:
		over = true
	case l.Soft > 0 && s.bytes > l.Soft:
		now := h.now()
		if s.over.IsZero() {
			s.over = now
		}
		over = now.Sub(s.over) >= l.SoftFor
	default:
		s.over = time.Time{}
	}
	s.mu.Unlock()
	s.signal()
	if over {
		slow = append(slow, s)
	}
	return slow
}

func (s *Subscriber) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Ready returns a channel that receives a value when messages may be waiting or
// the subscriber was closed: a caller that selects on it then calls Drain. It
// stays the same for the subscriber's life.
func (s *Subscriber) Ready() <-chan struct{} { return s.ready }

// Drain appends the messages waiting to dst and returns it, taking them off the
// queue; once the queue is empty and s closed it returns the reason ([ErrClosed],
// [ErrSlow]). O(messages).
func (s *Subscriber) Drain(dst []Message) ([]Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return dst, s.err
	}
	dst = append(dst, s.queue...)
	clear(s.queue)
	s.queue, s.bytes, s.over = s.queue[:0], 0, time.Time{}
	return dst, nil
}

// Receive returns the next message, waiting for one; it returns ctx's error when
// ctx ends first, and [ErrClosed] or [ErrSlow] once s is closed and what it held
// was taken.
func (s *Subscriber) Receive(ctx context.Context) (Message, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			m := s.queue[0]
			s.queue[0] = Message{}
			s.queue = s.queue[1:]
			s.bytes -= m.size()
			if len(s.queue) == 0 {
				s.queue, s.over = nil, time.Time{}
			}
			s.mu.Unlock()
			return m, nil
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			return Message{}, err
		}
		select {
		case <-s.ready:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

// Messages iterates over the messages as Receive returns them, until Receive fails,
// yielding that error last.
func (s *Subscriber) Messages(ctx context.Context) iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		for {
			m, err := s.Receive(ctx)
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// Err returns nil while s is open, else why it was closed. O(1).
func (s *Subscriber) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close unsubscribes s from everything and drops what it had not received; Receive
// then returns [ErrClosed]. Closing twice does nothing.
// O(subscriptions).
func (s *Subscriber) Close() {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.hub.drop(s, ErrClosed)
}
