package jetstream

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"golang.org/x/sync/singleflight"
	"termin/shared"
)

// packer gathers the bookings of one partition into one message of the
// stream, a shared.Envelope on the partition's subject, as a database's
// group commit gathers commits: a booking with nothing of its partition in
// flight (sent and not yet decided) is sent at once, alone; one that finds
// bookings in flight waits for company in the partition's current pack,
// which is sent when the last booking in flight is decided (the booker is
// free for it), when it is full, or at the latest PackWait after its first
// booking. So a lone booking never waits, and under load the packs grow
// with what arrives during one decision's round trip. Each submitter
// returns once its pack is sent, with the pack, so that a late decision can
// publish the same message again under the same Msg-Id (confirm). A pack of
// one is sent as the command alone, on its doctor's subject, as without a
// packer.
type packer struct {
	q    *Queue
	wait time.Duration
	mu   sync.Mutex
	cur  [shared.Partitions]*pack
	// flying counts each partition's bookings sent and not yet decided
	// (or given up on: landed).
	flying [shared.Partitions]int
	// last is when each partition's latest booking came, gap the moving
	// average of the time between two (see arriving).
	last [shared.Partitions]time.Time
	gap  [shared.Partitions]time.Duration
}

// pack is one envelope on its way: the commands in it, then, once sent,
// the message and the error of sending it.
type pack struct {
	partition int
	opened    time.Time
	items     []packed
	size      int
	done      chan struct{}
	msg       *nats.Msg
	err       error
	// acked is the stream's PubAck once a late command had the envelope
	// published again with one (confirm); flight makes the envelope's late
	// commands share one such publish, and is all that reads or writes acked.
	acked  *jetstream.PubAck
	flight singleflight.Group
}

// packed is one command of a pack, with what it needs to travel alone.
type packed struct {
	doctorID int64
	msgID    string
	reply    string
	data     []byte
	// traceparent is the command's trace context, which a command sent
	// alone also carries in its headers.
	traceparent string
}

// add puts a command in its partition's pack, or sends it at once when
// nothing of its partition is in flight, and waits until it is sent. The
// command that fills the pack takes it out of reach of the next one before
// letting go of the lock, so that no pack outgrows an envelope's bounds.
// The caller reports the command's end with landed, exactly once.
func (p *packer) add(it packed) (*pack, error) {
	part := shared.Partition(it.doctorID)
	p.mu.Lock()
	p.arrived(part)
	pk := p.cur[part]
	if pk == nil && p.flying[part] == 0 {
		pk = &pack{partition: part, done: make(chan struct{}), items: []packed{it}}
		p.flying[part]++
		p.mu.Unlock()
		p.send(pk)
		return pk, pk.err
	}
	if pk == nil {
		pk = &pack{partition: part, done: make(chan struct{}), opened: time.Now()}
		p.cur[part] = pk
		time.AfterFunc(p.wait, func() { p.seal(pk) })
	}
	pk.items = append(pk.items, it)
	pk.size += len(it.data) + 1
	full := len(pk.items) >= shared.MaxEnvelopeCommands || pk.size >= shared.MaxEnvelopeBytes-shared.MaxCommandBytes-256
	if full {
		p.cur[part] = nil
		p.flying[part] += len(pk.items)
	}
	p.mu.Unlock()
	if full {
		p.send(pk)
	}
	<-pk.done
	return pk, pk.err
}

// landed ends a sent booking's flight: decided, refused or given up on.
// When it was the last of its partition in flight, the partition's pack
// goes now, the booker having nothing more of this gateway's to decide,
// unless bookings keep arriving often enough that the next is due within
// the pack's wait: then the pack fills on until its wait is over.
func (p *packer) landed(part int) {
	p.mu.Lock()
	p.flying[part]--
	pk := p.cur[part]
	if p.flying[part] > 0 || pk == nil || p.arriving(part, pk.opened.Add(p.wait)) {
		p.mu.Unlock()
		return
	}
	p.cur[part] = nil
	p.flying[part] += len(pk.items)
	p.mu.Unlock()
	p.send(pk)
}

// confirm publishes the pack again with a PubAck for its late command cmd,
// once for all of its commands: at 07:00 a whole envelope is late at once,
// and the first PubAck answers for every command in it. The envelope's
// other late commands share the publish under way rather than wait for it
// one after the other: each wait may last a place in the line of
// confirmations and a PublishTimeout, and an envelope of fifty commands
// cut off with its stream's leader took minutes to be heard of again. A
// publish that failed is tried again by the next late command.
func (pk *pack) confirm(q *Queue, cmd shared.Command) (*jetstream.PubAck, error) {
	v, err, _ := pk.flight.Do("", func() (any, error) {
		if pk.acked != nil {
			return pk.acked, nil
		}
		ack, err := q.confirmBounded(func() (*jetstream.PubAck, error) { return q.publish(context.Background(), pk.msg, cmd) })
		if err == nil {
			pk.acked = ack
		}
		return ack, err
	})
	ack, _ := v.(*jetstream.PubAck)
	return ack, err
}

// seal sends pk at the end of its wait, unless it was sent already.
func (p *packer) seal(pk *pack) {
	p.mu.Lock()
	if p.cur[pk.partition] != pk {
		p.mu.Unlock()
		return
	}
	p.cur[pk.partition] = nil
	p.flying[pk.partition] += len(pk.items)
	p.mu.Unlock()
	p.send(pk)
}

// send publishes a pack no command can join any more, and lets its
// submitters go on.
func (p *packer) send(pk *pack) {
	pk.msg = p.message(pk.partition, pk.items)
	pk.err = p.q.send(pk.msg)
	close(pk.done)
}

// message is the stream message of a pack: the command alone when it is the
// only one, else the envelope, under an id of its own and with the batched
// replies its commands take.
func (p *packer) message(partition int, items []packed) *nats.Msg {
	if len(items) == 1 {
		it := items[0]
		return p.q.wrap(it.doctorID, it.msgID, it.reply, it.data, it.traceparent)
	}
	msg := nats.NewMsg(shared.EnvelopeSubject(p.q.cfg.Namespace.Subject(p.q.cfg.SubjectPrefix), partition))
	msg.Data = envelope(p.q.inbox, items)
	msg.Header.Set(nats.MsgIdHdr, shared.EnvelopeMsgIDPrefix+nuid.Next())
	msg.Header.Set(shared.RepliesHeader, shared.RepliesBatched)
	return msg
}

// envelope encodes a shared.Envelope of items. The commands are JSON the
// queue encoded itself and the inbox is plain tokens, so they are copied as
// they are instead of being checked and compacted again by encoding/json.
func envelope(inbox string, items []packed) []byte {
	size := len(inbox) + 32
	for _, it := range items {
		size += len(it.data) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"inbox":`...)
	b = strconv.AppendQuote(b, inbox)
	b = append(b, `,"commands":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.data...)
	}
	return append(b, "]}"...)
}

// landing wraps a command's forget so that its end also ends its flight,
// once however often forget is called.
func (p *packer) landing(doctorID int64, forget func()) func() {
	part := shared.Partition(doctorID)
	var once sync.Once
	return func() {
		forget()
		once.Do(func() { p.landed(part) })
	}
}

// addCommand sends a booking in its partition's envelope (or alone) and
// returns the envelope, which a late decision publishes again whole.
func (p *packer) addCommand(doctorID int64, msgID, reply string, cmd shared.Command) (*pack, error) {
	data, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	return p.add(packed{doctorID: doctorID, msgID: msgID, reply: reply, data: data, traceparent: cmd.TraceParent})
}

// arrived counts a booking of the partition in its average gap; p.mu held.
func (p *packer) arrived(part int) {
	now := time.Now()
	if !p.last[part].IsZero() {
		p.gap[part] += (now.Sub(p.last[part]) - p.gap[part]) / 8
	}
	p.last[part] = now
}

// arriving is whether the partition's bookings keep coming often enough
// that the next is due before the deadline: the average gap fits in what
// is left, and the latest came no longer than two gaps ago; p.mu held. A
// pack sent whenever the bookings in flight landed carried two or three at
// 1,000 clicks/s spread over every doctor, each a stored message of its own.
func (p *packer) arriving(part int, deadline time.Time) bool {
	now, gap := time.Now(), p.gap[part]
	return gap > 0 && now.Add(gap).Before(deadline) && now.Sub(p.last[part]) <= 2*gap
}
