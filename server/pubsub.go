package server

import (
	"slices"
	"strings"

	"github.com/zlite/zlite/pubsub"
)

// Pub/Sub on the wire: the subscribe commands, PUBLISH, SPUBLISH and PUBSUB over
// the server's hub (the Pub/Sub of the keyspace it started with at 0), and the
// delivery of messages to a subscribed connection.
//
// A connection that subscribes gets a subscriber and, for the rest of its life, a
// pusher goroutine that writes the subscriber's messages as they arrive. The
// connection's writer is then shared, so both hold c.wmu while they write: the
// connection's goroutine from the start of each step to its end, but for the
// reads that wait for the network (flushReader.Read) and the wait of a blocking
// command (block); the pusher while it writes a batch of messages and flushes
// them. Before a command runs, the messages already queued are written (so they
// precede its reply, as in Redis, whose output buffer holds them first). A message
// that a command publishes to its own connection (PUBLISH, a script's, a
// transaction's) comes after that command's reply, as in Redis 7.2; 7.0 wrote it
// first, in the middle of a script's or a transaction's reply.

// pubsubAllowed names the commands a RESP2 connection with subscriptions may run.
var pubsubAllowed = map[string]bool{"ping": true, "subscribe": true, "ssubscribe": true, "unsubscribe": true,
	"sunsubscribe": true, "psubscribe": true, "punsubscribe": true, "quit": true, "reset": true}

// inPubSubContext reports whether the client is in RESP2's subscribed context: it
// has a subscription, so only pubsubAllowed commands run.
func (c *client) inPubSubContext() bool {
	if c.w.resp3 {
		return false
	}
	s := c.sub.Load()
	if s == nil {
		return false
	}
	ch, p, sh := s.Subscriptions()
	return ch+p+sh > 0
}

// subscriber returns the client's subscriber, making it and starting its pusher
// on the first call. The connection's goroutine calls it, within a step.
func (c *client) subscriber() *pubsub.Subscriber {
	if s := c.sub.Load(); s != nil {
		return s
	}
	s := c.srv.hub.Subscriber()
	c.sub.Store(s)
	// From now on the writer is shared: this step holds it (see step).
	c.wmu.Lock()
	c.pushing = true
	c.pushDone = make(chan struct{})
	go c.push(s, c.pushDone)
	return s
}

// push writes the subscriber's messages to the connection as they arrive, until
// the subscriber is closed: by the end of the connection (endPush), or by the hub
// for a queue past its limits, which closes the connection as Redis does.
func (c *client) push(s *pubsub.Subscriber, done chan<- struct{}) {
	defer close(done)
	var buf []pubsub.Message
	for range s.Ready() {
		var err error
		buf, err = s.Drain(buf[:0])
		c.wmu.Lock()
		for i := range buf {
			c.w.message(&buf[i])
		}
		ferr := c.w.flush()
		c.wmu.Unlock()
		clear(buf)
		if b, ok := c.nc.(interface{ Buffered() int }); ok && err == nil && int64(b.Buffered()) > c.srv.hub.Limits().Hard {
			// In process, written is not sent: what the client has not read
			// counts against the limit as the queue does.
			s.Close()
			err = pubsub.ErrSlow
		}
		switch {
		case err == pubsub.ErrSlow:
			c.srv.log.Warn("client closed for overcoming of output buffer limits", "id", c.id, "class", "pubsub")
			c.kill()
			return
		case err != nil:
			return
		case ferr != nil:
			s.Close()
			c.kill()
			return
		}
	}
}

// pendingPushes writes the messages queued for the client, before a command's
// reply. The connection's goroutine calls it, holding c.wmu.
func (c *client) pendingPushes() {
	s := c.sub.Load()
	if s == nil {
		return
	}
	msgs, _ := s.Drain(nil)
	if len(msgs) == 0 {
		return
	}
	defer c.w.unmuted()()
	for i := range msgs {
		c.w.message(&msgs[i])
	}
}

// unmuted lets pushes through a writer muted by CLIENT REPLY OFF or SKIP, as Redis
// writes a push whatever the client's reply mode, and returns the function that
// mutes it again.
func (w *writer) unmuted() func() {
	if w.conn == nil {
		return func() {}
	}
	w.mute(false)
	return func() { w.mute(true) }
}

// endPush closes the client's subscriber, if it has one, and waits for its pusher
// to end. The connection's goroutine calls it as the connection ends.
func (c *client) endPush() {
	s := c.sub.Load()
	if s == nil {
		return
	}
	s.Close()
	<-c.pushDone
}

// message writes one message as Redis pushes it: an array in RESP2, a push in RESP3.
func (w *writer) message(m *pubsub.Message) {
	if m.Kind == pubsub.KindPMessage {
		w.push(4)
		w.bulk("pmessage")
		w.bulk(m.Pattern)
	} else {
		w.push(3)
		w.bulk(m.Kind.String())
	}
	w.bulk(m.Channel)
	w.bulk(m.Payload)
}

// push starts a push of n elements: '>' in RESP3, an array in RESP2.
func (w *writer) push(n int) {
	if w.resp3 {
		w.prefixed('>', int64(n))
		return
	}
	w.array(n)
}

// subscribeCommand makes SUBSCRIBE, PSUBSCRIBE or SSUBSCRIBE (kind), replying one
// push per argument with the count after it.
func subscribeCommand(kind string, do func(*pubsub.Subscriber, ...string) []pubsub.Change) func(*client, []string) bool {
	return func(c *client, a []string) bool {
		names := make([]string, len(a)-1)
		for i, n := range a[1:] {
			names[i] = strings.Clone(n) // the hub keeps them
		}
		c.changes(kind, do(c.subscriber(), names...))
		return false
	}
}

// unsubscribeCommand makes UNSUBSCRIBE, PUNSUBSCRIBE or SUNSUBSCRIBE (kind): one
// push per argument, or per name the client had when none is given, or one with a
// null name when it had none.
func unsubscribeCommand(kind string, do func(*pubsub.Subscriber, ...string) []pubsub.Change) func(*client, []string) bool {
	return func(c *client, a []string) bool {
		s := c.sub.Load()
		if s == nil {
			if len(a) == 1 {
				c.changes(kind, []pubsub.Change{{}})
				return false
			}
			s = c.subscriber()
		}
		c.changes(kind, do(s, a[1:]...))
		return false
	}
}

// changes writes the pushes of a (un)subscribe command, even under CLIENT REPLY
// OFF.
func (c *client) changes(kind string, ch []pubsub.Change) {
	defer c.w.unmuted()()
	for _, x := range ch {
		c.w.push(3)
		c.w.bulk(kind)
		if x.Name == "" && strings.HasSuffix(kind, "unsubscribe") && len(ch) == 1 {
			c.w.null(false)
		} else {
			c.w.bulk(x.Name)
		}
		c.w.integer(int64(x.Count))
	}
}

// cmdPublish is PUBLISH (shard false) or SPUBLISH: the number of receivers.
func cmdPublish(shard bool) func(*client, []string) bool {
	return func(c *client, a []string) bool {
		ch, msg := strings.Clone(a[1]), strings.Clone(a[2])
		var n int
		if shard {
			n = c.srv.hub.SPublish(ch, msg)
		} else {
			n = c.srv.hub.Publish(ch, msg)
		}
		c.w.integer(int64(n))
		return false
	}
}

// cmdPubSub is PUBSUB CHANNELS|NUMSUB|NUMPAT|SHARDCHANNELS|SHARDNUMSUB|HELP.
func cmdPubSub(c *client, a []string) bool {
	h := c.srv.hub
	sub := strings.ToLower(a[1])
	switch sub {
	case "channels", "shardchannels":
		if len(a) > 3 {
			break
		}
		pattern := "*"
		if len(a) == 3 {
			pattern = a[2]
		}
		list := h.Channels(pattern)
		if sub == "shardchannels" {
			list = h.ShardChannels(pattern)
		}
		slices.Sort(list)
		c.w.array(len(list))
		for _, ch := range list {
			c.w.bulk(ch)
		}
		return false
	case "numsub", "shardnumsub":
		c.w.array(2 * (len(a) - 2))
		for _, ch := range a[2:] {
			c.w.bulk(ch)
			if sub == "numsub" {
				c.w.integer(int64(h.NumSub(ch)))
			} else {
				c.w.integer(int64(h.ShardNumSub(ch)))
			}
		}
		return false
	case "numpat":
		c.w.integer(int64(h.NumPat()))
		return false
	case "help":
		c.w.array(1)
		c.w.status("PUBSUB <subcommand> [<arg> ...]. Subcommands are: CHANNELS [<pattern>] NUMSUB [<channel> ...] NUMPAT SHARDCHANNELS [<pattern>] SHARDNUMSUB [<shardchannel> ...]")
		return false
	}
	c.w.errorReply("ERR unknown subcommand or wrong number of arguments for '" + trunc(a[1], 128) + "'. Try PUBSUB HELP.")
	return false
}
