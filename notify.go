package zlite

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/zlite/zlite/pubsub"
)

// Keyspace notifications: Redis's notify-keyspace-events. A write publishes, for
// each event it causes, "__keyspace@<db>__:<key>" with the event's name and
// "__keyevent@<db>__:<event>" with the key, into the Pub/Sub hub the DB was told
// to publish into (its own, as db 0, unless [DB.SetEventHub] says otherwise).
// Events are published under the locks of the command that causes them, in the
// order Redis emits them, so a subscriber sees each key's events in the order of
// the writes. A command that reads a key it finds missing publishes "keymiss"
// (class m, Tx.read). While no class is enabled (the default) a write, or a read
// of a missing key, pays one atomic load and a branch; see BenchmarkNotify.

// KeyspaceEvents is a set of the classes of notify-keyspace-events, one bit per
// flag letter of Redis's. The zero value enables nothing. A class of events is
// published when its class bit and [EventsKeyspace] or [EventsKeyevent] (or both)
// are set.
type KeyspaceEvents uint32

// The classes of keyspace events, with Redis's flag letters and bit values.
const (
	EventsKeyspace KeyspaceEvents = 1 << iota // K: __keyspace@<db>__:<key> channels
	EventsKeyevent                            // E: __keyevent@<db>__:<event> channels
	EventsGeneric                             // g: DEL, EXPIRE, RENAME, ... (type-independent)
	EventsString                              // $: string commands
	EventsList                                // l: list commands
	EventsSet                                 // s: set commands
	EventsHash                                // h: hash commands
	EventsZSet                                // z: sorted-set commands
	EventsExpired                             // x: a key removed because its TTL passed
	EventsEvicted                             // e: a key evicted for maxmemory (zlite evicts none)
	EventsStream                              // t: stream commands (zlite has no streams)
	EventsKeyMiss                             // m: a read of a missing key (not part of A)
	eventsLoaded                              // Redis's modules-only "loaded" class, no letter
	EventsModule                              // d: module key types (zlite has no modules)
	EventsNew                                 // n: a key created (not part of A)

	// EventsAll is the flag letter A: g$lshzxetd.
	EventsAll = EventsGeneric | EventsString | EventsList | EventsSet | EventsHash |
		EventsZSet | EventsExpired | EventsEvicted | EventsStream | EventsModule
)

// ErrKeyspaceEvents is the error of [ParseKeyspaceEvents] for a character that is
// not a flag letter; its text is that of Redis's CONFIG SET.
//
//lint:ignore ST1005 Redis's text, byte for byte, capitalised and ending with a full stop.
var ErrKeyspaceEvents = errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")

// ParseKeyspaceEvents parses Redis's notify-keyspace-events flag letters
// ("KEA", "Kx", "" for none), in any order and with repeats allowed, as
// CONFIG SET does. Errors: [ErrKeyspaceEvents]. O(len(s)).
func ParseKeyspaceEvents(s string) (KeyspaceEvents, error) {
	var ev KeyspaceEvents
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'A':
			ev |= EventsAll
		case 'g':
			ev |= EventsGeneric
		case '$':
			ev |= EventsString
		case 'l':
			ev |= EventsList
		case 's':
			ev |= EventsSet
		case 'h':
			ev |= EventsHash
		case 'z':
			ev |= EventsZSet
		case 'x':
			ev |= EventsExpired
		case 'e':
			ev |= EventsEvicted
		case 'K':
			ev |= EventsKeyspace
		case 'E':
			ev |= EventsKeyevent
		case 't':
			ev |= EventsStream
		case 'm':
			ev |= EventsKeyMiss
		case 'd':
			ev |= EventsModule
		case 'n':
			ev |= EventsNew
		default:
			return 0, ErrKeyspaceEvents
		}
	}
	return ev, nil
}

// String returns ev's flag letters in the canonical form CONFIG GET shows: "A"
// when every class of A is set, else the classes in the order g$lshzxetdn, then
// K, E and m. O(1).
func (ev KeyspaceEvents) String() string {
	var b []byte
	if ev&EventsAll == EventsAll {
		b = append(b, 'A')
	} else {
		for _, c := range [...]struct {
			f KeyspaceEvents
			c byte
		}{
			{EventsGeneric, 'g'}, {EventsString, '$'}, {EventsList, 'l'}, {EventsSet, 's'},
			{EventsHash, 'h'}, {EventsZSet, 'z'}, {EventsExpired, 'x'}, {EventsEvicted, 'e'},
			{EventsStream, 't'}, {EventsModule, 'd'}, {EventsNew, 'n'},
		} {
			if ev&c.f != 0 {
				b = append(b, c.c)
			}
		}
	}
	if ev&EventsKeyspace != 0 {
		b = append(b, 'K')
	}
	if ev&EventsKeyevent != 0 {
		b = append(b, 'E')
	}
	if ev&EventsKeyMiss != 0 {
		b = append(b, 'm')
	}
	return string(b)
}

// WithKeyspaceEvents makes the DB publish the keyspace events of the classes in
// ev from the start (see [DB.SetKeyspaceEvents]).
func WithKeyspaceEvents(ev KeyspaceEvents) Option {
	return func(c *config) { c.events = ev }
}

// WithEventsDB names the DB db in its events' channels ("__keyspace@<db>__:..."):
// the number it has on a server. The default is 0.
func WithEventsDB(db int) Option {
	return func(c *config) { c.eventsDB = db }
}

// eventTarget is where a DB publishes its events: the hub, and the two channel
// prefixes with the DB's number, built once when the target is set.
type eventTarget struct {
	hub                *pubsub.Hub
	keyspace, keyevent string
}

func newEventTarget(hub *pubsub.Hub, db int) *eventTarget {
	n := strconv.Itoa(db)
	return &eventTarget{hub: hub, keyspace: "__keyspace@" + n + "__:", keyevent: "__keyevent@" + n + "__:"}
}

// SetKeyspaceEvents sets the classes of keyspace events the DB publishes, as
// CONFIG SET notify-keyspace-events does; 0 turns them off. Commands that run
// after it returns publish by the new setting. O(1).
func (db *DB) SetKeyspaceEvents(ev KeyspaceEvents) { db.events.Store(uint32(ev)) }

// KeyspaceEvents returns the classes of keyspace events the DB publishes
// (CONFIG GET notify-keyspace-events is its String). O(1).
func (db *DB) KeyspaceEvents() KeyspaceEvents { return KeyspaceEvents(db.events.Load()) }

// SetEventHub makes the DB publish its keyspace events into hub, naming itself
// index in their channels: a server with several DBs gives each its number and one
// hub, and renumbers them when SWAPDB exchanges two. A nil hub restores the DB's
// own ([DB.PubSub]). O(1).
func (db *DB) SetEventHub(hub *pubsub.Hub, index int) {
	if hub == nil {
		hub = db.hub
	}
	db.target.Store(newEventTarget(hub, index))
}

// notify publishes event about key if its class is enabled: the only cost while
// notifications are off is the load and the branch, which the compiler inlines.
func (tx *Tx) notify(class KeyspaceEvents, event, key string) {
	if KeyspaceEvents(tx.db.events.Load())&class != 0 {
		tx.publish(event, key)
	}
}

// publish is notify's slow path, kept out of line so that notify is inlined.
//
//go:noinline
func (tx *Tx) publish(event, key string) {
	if !tx.muted {
		tx.db.publishEvent(KeyspaceEvents(tx.db.events.Load()), event, key)
	}
}

// notify is Tx.notify for code that holds a shard rather than a Tx (expiry).
func (db *DB) notify(class KeyspaceEvents, event, key string) {
	if ev := KeyspaceEvents(db.events.Load()); ev&class != 0 {
		db.publishEvent(ev, event, key)
	}
}

// notifying reports whether events of class are published: a command checks it
// before work that only an event needs.
func (tx *Tx) notifying(class KeyspaceEvents) bool {
	return KeyspaceEvents(tx.db.events.Load())&class != 0 && !tx.muted
}

// publishEvent publishes event about key on the channels ev enables. The key is
// copied: it may be a view of the caller's read buffer or of the key table.
func (db *DB) publishEvent(ev KeyspaceEvents, event, key string) {
	t := db.target.Load()
	if ev&EventsKeyspace != 0 {
		t.hub.Publish(t.keyspace+key, event)
	}
	if ev&EventsKeyevent != 0 {
		t.hub.Publish(t.keyevent+event, strings.Clone(key))
	}
}

// notifyNew publishes "new" for key unless it exists: the string commands, which
// replace a value in one step, call it before the replacement.
func (tx *Tx) notifyNew(key string) {
	if KeyspaceEvents(tx.db.events.Load())&EventsNew != 0 {
		tx.publishNew(key)
	}
}

// publishNew is notifyNew's slow path, out of line as publish is.
//
//go:noinline
func (tx *Tx) publishNew(key string) {
	if _, ok := tx.sh(key).lookup(key); !ok {
		tx.publish("new", key)
	}
}

// popEvent and pushEvent are the names of the events of a list pop and push at
// the head (left) or the tail.
func popEvent(left bool) string {
	if left {
		return "lpop"
	}
	return "rpop"
}

func pushEvent(left bool) string {
	if left {
		return "lpush"
	}
	return "rpush"
}

// zpopEvent is the name of the event of ZPOPMIN (min) or ZPOPMAX.
func zpopEvent(min bool) string {
	if min {
		return "zpopmin"
	}
	return "zpopmax"
}

// MuteEvents silences (mute true) or restores the keyspace events of the commands
// run through tx, for a caller that builds a command of its own out of several
// (a MOVE between two DBs made of a read, a write and a DEL) and publishes that
// command's events itself with [Tx.NotifyKeyspaceEvent]. The keys' expiry still
// publishes "expired". It lasts until the command or batch ends. O(1).
//
//zlite:tx-only
func (tx *Tx) MuteEvents(mute bool) { tx.muted = mute }

// NotifyKeyspaceEvent publishes event, of class, about key, on the DB's
// keyspace-event channels if class is enabled, as Redis's notifyKeyspaceEvent
// does for a command. It publishes even while tx is muted. O(subscribers +
// patterns) when published, O(1) when not.
func (tx *Tx) NotifyKeyspaceEvent(class KeyspaceEvents, event, key string) {
	tx.db.notify(class, event, key)
}

// NotifyKeyspaceEvent is [Tx.NotifyKeyspaceEvent] outside any command: for an
// operation of the caller's own on the DB's keys. O(subscribers + patterns) when
// published, O(1) when not.
func (db *DB) NotifyKeyspaceEvent(ctx context.Context, class KeyspaceEvents, event, key string) {
	db.notify(class, event, key)
}
