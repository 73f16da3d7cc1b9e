package jetstream

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/shared"
)

// Lane is a worker's lane, for the tests of its batching.
type Lane struct{ l *lane }

// Entry is a parsed message, as the pool routes and batches it.
type Entry = entry

// NewLane makes a lane of batches of at most max.
func NewLane(max int) Lane { return Lane{newLane(max, nil)} }

// NewLaneWithCompany makes a lane whose short batches wait only while
// company reports more commands coming.
func NewLaneWithCompany(max int, company func() bool) Lane { return Lane{newLane(max, company)} }

// Wake has the lane look again whether company is coming.
func (l Lane) Wake() { l.l.wake() }

// NewLaneWithClock makes a lane that reads the time from now.
func NewLaneWithClock(max int, now func() time.Time) Lane {
	l := newLane(max, nil)
	l.now = now
	return Lane{l}
}

// Push adds e, waiting while the lane holds two batches.
func (l Lane) Push(e *Entry) { l.l.push(e) }

// Take returns the next batch, or false once closed and empty.
func (l Lane) Take(wait time.Duration) ([]*Entry, bool) { return l.l.take(wait) }

// Close ends the lane.
func (l Lane) Close() { l.l.close() }

// Held is the number of entries waiting in the lane.
func (l Lane) Held() int {
	l.l.mu.Lock()
	defer l.l.mu.Unlock()
	return len(l.l.msgs)
}

// NewEntry is a parsed command, as pull hands it to a lane.
func NewEntry(cmd shared.Command) *Entry { return &entry{cmd: cmd} }

// CommandOf is the entry's command.
func CommandOf(e *Entry) shared.Command { return e.cmd }

// Parse reads a pulled message as the pool does: one entry, or one per
// command of an envelope.
func (w *Worker) Parse(m jetstream.Msg) []*Entry { return w.parse(m) }

// Unpack reads data as the pool reads an envelope pulled from the stream.
func Unpack(data []byte) []*Entry { return unpack(dataMsg{data: data}, 1) }

// dataMsg is a pulled message of which unpack reads only the data.
type dataMsg struct {
	jetstream.Msg
	data []byte
}

func (m dataMsg) Data() []byte { return m.data }

// ReplyOf is where the entry's decision goes.
func ReplyOf(e *Entry) string { return e.reply }

// ErrOf is why the entry cannot be decided, or nil.
func ErrOf(e *Entry) error { return e.err }

// LaneOf routes an entry among lanes.
func LaneOf(e *Entry, lanes int) int { return laneOf(e, lanes) }

// Dispose names what becomes of a message after an attempt that ended in
// err, at its first delivery: "term" when it is parked (and terminated).
func Dispose(err error) string {
	a, _ := (&Worker{}).dispose(&entry{err: err, delivered: 1})
	return [...]string{ack: "ack", nak: "nak", dead: "term"}[a]
}

// DecodeCommand is the worker's command decoder, for the black-box tests.
var DecodeCommand = decodeCommand

// ErrMalformed marks a message no retry can make decidable.
var ErrMalformed = errMalformed

// Backoff is the redelivery delay after delivered attempts.
var Backoff = backoff

// Record keeps the first decision of key.
func (w *Worker) Record(ctx context.Context, key string, d shared.Decision) (shared.Decision, error) {
	return w.record(ctx, key, d)
}

// RecordedMany reads the decisions of the keys, by the bucket's subjects.
func (w *Worker) RecordedMany(ctx context.Context, keys []string) (map[string]shared.Decision, error) {
	subjects := make([]string, len(keys))
	for i, k := range keys {
		subjects[i] = w.decisionSubject(k)
	}
	found, err := w.recordedMany(ctx, subjects)
	byKey := make(map[string]shared.Decision, len(found))
	for i, s := range subjects {
		if d, ok := found[s]; ok {
			byKey[keys[i]] = d
		}
	}
	return byKey, err
}

// ReadOneByOne makes the worker read decisions key by key, as it does on a
// server without batched direct gets.
func (w *Worker) ReadOneByOne() { w.oneByOne.Store(true) }

// RecordBatch records decisions of book commands as a batch's conclusion does
// and returns what each entry ends with.
func (w *Worker) RecordBatch(ctx context.Context, cmds []shared.Command, ds []shared.Decision) ([]shared.Decision, []error) {
	entries := make([]*entry, len(cmds))
	for i := range cmds {
		entries[i] = &entry{cmd: cmds[i], decision: ds[i]}
	}
	w.recordAll(ctx, entries)
	out, errs := make([]shared.Decision, len(cmds)), make([]error, len(cmds))
	for i, e := range entries {
		out[i], errs[i] = e.decision, e.err
	}
	return out, errs
}

// Handle decides msgs as one batch, as a lane hands them over, and waits
// until each is answered and acknowledged.
func (w *Worker) Handle(ctx context.Context, msgs []jetstream.Msg) {
	var entries []*entry
	for _, m := range msgs {
		entries = append(entries, w.parse(m)...)
	}
	w.HandleBatch(ctx, entries).wait()
}

// Unplaced is what the booker waits out while its cluster forms.
var Unplaced = unplaced

// DropDeliveries has the pool lose the deliveries drop is true for before
// it sees them, as a connection cut in mid-delivery does.
func (p *Pool) DropDeliveries(drop func(jetstream.Msg) bool) { p.drop = drop }
