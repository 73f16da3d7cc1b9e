package gateway

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"termin/shared"
)

// RoomConfig bounds the waiting room.
type RoomConfig struct {
	// Margin is how many requests beyond the places left may be in the queue
	// for one slot at once; the rest wait here, in arrival order.
	Margin int
	// MaxTickets bounds the gateway's memory: past it new requests get 503.
	MaxTickets int
	// MaxInflight bounds the commands this gateway has in the queue at once,
	// over all slots. Past the booker's pace, more in the queue only costs
	// stream writes and repeats; the rest wait here, where a repeat is cheap.
	// The default matches the consumer's MaxAckPending: more in the queue than
	// the bookers may hold at once gains nothing.
	MaxInflight int
	// FullFor is how long a full mark lasts without a refresh, so a lost
	// announcement cannot keep a slot closed for ever.
	FullFor time.Duration
	// PreWindow is how long before a slot opens requests may join its pre-queue.
	PreWindow time.Duration
	// Secret is the lottery secret common to all gateways: each opening's
	// draw is derived from it (see OpeningSecret), so that every gateway
	// ranks a patient alike. It is never logged; each opening's own secret
	// is, once the opening has come.
	Secret string
	// MaxLines bounds the slots the room keeps state for; 0 means
	// DefaultMaxLines. Past it, a full mark announced for a slot the room has
	// not seen is not kept (a mark only saves a queue round trip).
	MaxLines int
}

// DefaultMaxLines is far above the slots of one opening (80,000 for 2,000
// doctors with 40 slots), at a few hundred bytes each.
const DefaultMaxLines = 500_000

// DefaultRoomConfig is the waiting room of a gateway at a 7:00 opening.
func DefaultRoomConfig() RoomConfig {
	return RoomConfig{Margin: 4, MaxTickets: 200_000, MaxInflight: 4096, FullFor: 30 * time.Second,
		PreWindow: 10 * time.Minute, Secret: randomSecret()}
}

// randomSecret is a lottery secret of this gateway alone: enough for one
// gateway; several must be given a common one.
func randomSecret() string {
	b := make([]byte, 32)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}

// Room is the virtual waiting room in front of the queue. Per slot it lets at
// most (places left + margin) requests into the queue at once; the others wait
// in arrival order and are admitted as decisions come back. When the slot
// fills, every request still waiting is refused at once. Requests that arrive
// shortly before the slot opens join a pre-queue that is admitted in a seeded
// random order at the opening.
type Room struct {
	cfg     RoomConfig
	queue   Submitter
	slots   SlotSource
	log     *slog.Logger
	now     func() time.Time
	mu      sync.Mutex
	lines   map[int64]*line
	tickets map[ticketID]*Ticket
	// openings holds each patient's undecided ticket per opening.
	openings map[openingID]*Ticket
	// name and peers: this gateway among the others, and their loads.
	name    string
	peers   map[string]*peer
	dirty   []*line            // lines whose demand changed since the loads were last told
	newPeer bool               // a gateway appeared: tell it every load
	active  map[int64]LineLoad // loads of the lines holding requests, as of the last Loads
	// remote holds the places other gateways told of; following, the
	// tickets here that wait for one of them; notes, what to tell them.
	remote    map[openingID]remotePlace
	following map[openingID][]*Ticket
	notes     []PlaceNote
	// places, when set, decides across gateways which key holds a place.
	places      PlaceRecord
	placesSince time.Time
	// inflight counts admitted, undecided tickets; starved are the lines that
	// have room but wait for the gateway-wide bound, in the order they hit it.
	// starvedIn and starvedOut count the lines that ever joined and left it.
	inflight              int
	starved               []*line
	starvedIn, starvedOut int
	// pace counts the decisions of every line: a starved line's wait is
	// the gateway's, not its slot's.
	pace  pace
	reads singleflight.Group
	// walkedAt is when Sweep last walked every ticket and line.
	walkedAt time.Time
}

// Submitter is the room's way into the durable queue: it puts a command on
// its doctor's subject. The channel yields the command's decision once,
// however long that takes, or is closed if none comes.
type Submitter interface {
	Submit(ctx context.Context, doctorID int64, msgID string, cmd shared.Command) (<-chan shared.Decision, error)
}

// RoomOption changes how a room is made.
type RoomOption func(*Room)

// WithClock gives the room another clock than time.Now, so that a test can
// move through an opening or a full mark's lifetime without waiting.
func WithClock(now func() time.Time) RoomOption { return func(r *Room) { r.now = now } }

// NewRoom makes a waiting room: queue takes the admitted requests, slots
// reads a slot's places when the room does not know them. Those places must
// be fresh (read within about a second): they are what the room admits by.
func NewRoom(cfg RoomConfig, queue Submitter, slots SlotSource, log *slog.Logger, opts ...RoomOption) *Room {
	if cfg == (RoomConfig{}) {
		cfg = DefaultRoomConfig()
	}
	log.Info("waiting room", "margin", cfg.Margin, "max_tickets", cfg.MaxTickets)
	r := &Room{cfg: cfg, queue: queue, slots: slots, log: log, now: time.Now,
		lines: make(map[int64]*line), tickets: make(map[ticketID]*Ticket),
		openings: make(map[openingID]*Ticket), peers: make(map[string]*peer),
		remote: make(map[openingID]remotePlace), following: make(map[openingID][]*Ticket),
		active: make(map[int64]LineLoad)}
	for _, o := range opts {
		o(r)
	}
	r.placesSince = r.now()
	return r
}

// Join finds the request's ticket or gives it a new one at the end of its
// slot's line, admitting whoever may go into the queue now.
func (r *Room) Join(ctx context.Context, slot Slot, req BookRequest) (*Ticket, error) {
	id := ticketID{req.PatientID, req.IdempotencyKey}
	for range 3 {
		r.mu.Lock()
		if t := r.tickets[id]; t != nil {
			r.mu.Unlock()
			return settled(ctx, t)
		}
		if ln := r.currentLine(slot.ID); ln != nil {
			t, err := r.enterLocked(ln, slot, req, id)
			r.mu.Unlock()
			if err != nil {
				return nil, err
			}
			return settled(ctx, t)
		}
		r.mu.Unlock()
		if err := r.learn(ctx, slot.ID); err != nil {
			return nil, err
		}
	}
	return nil, ErrUnavailable // the line vanished again and again: let the client repeat
}

// enterLocked puts a new ticket in the line (or its pre-queue).
func (r *Room) enterLocked(ln *line, slot Slot, req BookRequest, id ticketID) (*Ticket, error) {
	now := r.now()
	switch {
	case now.Before(ln.opensAt.Add(-r.cfg.PreWindow)):
		return nil, ErrSlotClosed
	case len(r.tickets) >= r.cfg.MaxTickets:
		return nil, ErrUnavailable
	}
	oid, inOpen := openingOf(ln, slot.DoctorID, req.PatientID)
	if held := r.openings[oid]; inOpen && held != nil {
		// The patient's place in this opening answers every key it sends there.
		held.aliases = append(held.aliases, id)
		r.tickets[id] = held
		return held, nil
	}
	if rp, ok := r.heldRemote(oid); inOpen && ok {
		return r.followLocked(ln, req, id, slot.DoctorID, oid, rp), nil
	}
	t := &Ticket{id: id, line: ln, Request: req, DoctorID: slot.DoctorID, done: make(chan struct{}), madeAt: now,
		opening: oid, inOpen: inOpen}
	r.tickets[id] = t
	if inOpen {
		r.openings[oid] = t
		if r.places != nil && !r.aloneLocked() {
			t.claiming = make(chan struct{})
			go r.claim(t) // lined up once the gateways' record gives it the place
			return t, nil
		}
		r.noteLocked(t, "")
	}
	r.lineUpLocked(ln, t)
	return t, nil
}

// lineUpLocked puts a ticket holding its place at the end of its line, or of
// the line's pre-queue before the opening.
func (r *Room) lineUpLocked(ln *line, t *Ticket) {
	now := r.now()
	if now.Before(ln.opensAt) {
		t.pre = true
		ln.pre = append(ln.pre, t)
		if len(ln.pre) == 1 {
			time.AfterFunc(ln.opensAt.Sub(now), func() { r.open(ln) })
		}
	} else {
		t.seq = ln.admitted + len(ln.waiting)
		ln.waiting = append(ln.waiting, t)
	}
	r.touchLocked(ln)
	r.admitLocked(ln)
}

// currentLine returns the slot's line if the room knows its places: it
// exists, and has room, a full mark, or was read from the database within
// the last second. Otherwise the caller learns them first.
func (r *Room) currentLine(slotID int64) *line {
	ln := r.lines[slotID]
	now := r.now()
	if ln != nil && (ln.left > 0 || now.Before(ln.fullUntil) || now.Before(ln.checkAt)) {
		return ln
	}
	return nil
}

// learn reads the slot's places from the database outside the room's lock,
// which the allocation-free known-full check shares; concurrent requests for
// one slot make one read.
func (r *Room) learn(ctx context.Context, slotID int64) error {
	_, err, _ := r.reads.Do(strconv.FormatInt(slotID, 10), func() (any, error) {
		fresh, err := r.slots.Slot(ctx, slotID)
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		ln := r.lines[slotID]
		if ln == nil {
			ln = &line{slotID: slotID, opensAt: fresh.OpensAt}
			r.lines[slotID] = ln
		}
		ln.left, ln.checkAt = fresh.Available(), r.now().Add(time.Second)
		return nil, nil
	})
	return err
}

// admitLocked moves waiting tickets into the queue while the slot has room.
func (r *Room) admitLocked(ln *line) {
	if r.now().Before(ln.opensAt) {
		return
	}
	if len(ln.pre) > 0 {
		// Open, and its timer has not drawn the pre-queue yet: a click after
		// the opening must not pass those who waited for it.
		r.drawLocked(ln)
	}
	// With no place left the margin still lets a few through: the booker then
	// gives the precise answer (a holder's new key is ALREADY_BOOKED, not full).
	if len(ln.waiting) == 0 {
		return
	}
	limit := ln.left + r.cfg.Margin
	if len(r.peers) > 0 {
		limit = r.shareLocked(ln, limit)
	}
	for len(ln.waiting) > 0 && len(ln.inflight) < limit {
		if r.cfg.MaxInflight > 0 && r.inflight >= r.cfg.MaxInflight {
			if !ln.starved {
				ln.starved, ln.starvedAt = true, r.starvedIn
				r.starved = append(r.starved, ln)
				r.starvedIn++
			}
			return
		}
		t := ln.waiting[0]
		ln.waiting = ln.waiting[1:]
		ln.admitted++
		if t.withdrawn {
			continue
		}
		t.admitted = true
		ln.inflight = append(ln.inflight, t)
		r.touchLocked(ln) // the others count this gateway's commands out
		r.inflight++
		go r.enqueue(t)
	}
}

// enqueue puts an admitted ticket's command in the queue and waits for its
// decision, however long that takes: the ticket outlives the HTTP request
// that made it, and the next requests are admitted as it is decided.
func (r *Room) enqueue(t *Ticket) {
	req := t.Request
	ch, err := r.submit(t.DoctorID, shared.BookingMsgID(req.PatientID, req.IdempotencyKey), req.command())
	if err != nil {
		r.decide(t, shared.Decision{}, err)
		return
	}
	d, ok := <-ch
	if !ok {
		r.decide(t, shared.Decision{}, fmt.Errorf("%w: no decision arrived", ErrUnavailable))
		return
	}
	r.decide(t, d, nil)
}

// submitAttempts bounds the publishes of one admitted ticket. A publish that
// timed out may still have reached the stream, and the booker may book it: a
// ticket answered 503 and forgotten then let the client's repeat be refused
// as full by this room while its first request held the place (seen under
// load). Publishing again under the same Msg-Id is
// safe: the stream answers a duplicate, and the key's decision follows.
const (
	submitAttempts = 3
	submitPause    = 250 * time.Millisecond
)

// submit publishes a command, again after a pause while the queue gives no
// answer, keeping the ticket admitted meanwhile. A refusal (a full stream) is
// final at once.
func (r *Room) submit(doctorID int64, msgID string, cmd shared.Command) (<-chan shared.Decision, error) {
	var err error
	for attempt := range submitAttempts {
		if attempt > 0 {
			time.Sleep(submitPause << attempt)
		}
		var ch <-chan shared.Decision
		if ch, err = r.queue.Submit(context.Background(), doctorID, msgID, cmd); err == nil || !errors.Is(err, ErrUncertain) {
			return ch, err
		}
	}
	return nil, err
}

// decide closes an admitted ticket with the booker's decision (or err when the
// queue refused it) and lets the next requests in.
func (r *Room) decide(t *Ticket, d shared.Decision, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ln := t.line
	now := r.now()
	r.releaseLocked(t)
	ln.observe(now)
	r.pace.observe(now, r.inflight == 0 && len(r.starved) == 0)
	switch {
	case err != nil:
	case d.Code == shared.Booked && !d.Replay && d.SlotID != ln.slotID:
		if taken := r.lines[d.SlotID]; taken != nil { // an alternative took the place
			taken.left = d.Left
		}
	case d.Code == shared.Booked && !d.Replay:
		ln.left = d.Left // as the booker saw it; announcements may also have told it
	case d.Code == shared.CodeSlotFull && d.Minutes == 0:
		// A longer visit refused as full may have found only a following slot taken.
		ln.left = 0
	}
	r.closeLocked(t, d, err)
	if ln.left == 0 {
		ln.checkAt = now.Add(time.Second)
		r.refuseWaitingLocked(ln)
		return
	}
	r.admitLocked(ln)
}

// releaseLocked takes an admitted ticket out of the queue's count and lets
// the lines waiting for the gateway-wide bound go on, first come first.
func (r *Room) releaseLocked(t *Ticket) {
	n := len(t.line.inflight)
	if t.line.inflight = remove(t.line.inflight, t); len(t.line.inflight) == n {
		return // released before (a stale ticket swept, then decided)
	}
	r.touchLocked(t.line)
	r.inflight--
	for len(r.starved) > 0 && r.inflight < r.cfg.MaxInflight {
		ln := r.starved[0]
		r.starved = r.starved[1:]
		r.starvedOut++
		ln.starved = false
		r.admitLocked(ln)
	}
}

// refuseWaitingLocked answers everyone still waiting for a full slot at once.
// A request naming alternatives stays: another of its slots may have room,
// and the booker, which it reaches through the margin, tries them all.
func (r *Room) refuseWaitingLocked(ln *line) {
	full := shared.Decision{V: shared.Version, Code: shared.CodeSlotFull, Detail: ErrSlotFull.Msg, SlotID: ln.slotID}
	keep := func(ts []*Ticket) []*Ticket {
		var kept []*Ticket
		for _, t := range ts {
			_, holds := ln.holders[t.Request.PatientID]
			switch {
			case t.withdrawn: // it follows another gateway's place
			case len(t.Request.SlotIDs) > 0 || holds:
				// Alternatives go on to the next slot; a holder's request,
				// the repeat of a key whose decision it did not get, goes on
				// to the booker, which answers it from its booking.
				kept = append(kept, t)
			default:
				r.closeLocked(t, full, nil)
			}
		}
		return kept
	}
	ln.waiting, ln.pre = keep(ln.waiting), keep(ln.pre)
	for i, t := range ln.waiting {
		t.seq = ln.admitted + i
	}
	r.touchLocked(ln)
	r.admitLocked(ln)
}

func (r *Room) closeLocked(t *Ticket, d shared.Decision, err error) {
	select {
	case <-t.done:
		return
	default:
	}
	t.decision, t.err, t.closedAt = d, err, r.now()
	close(t.done)
	if t.inOpen && r.openings[t.opening] == t {
		delete(r.openings, t.opening) // decided: the patient may line up again, at the end
		code := d.Code
		if err != nil {
			code = CodeReleased
		}
		r.noteLocked(t, code)
		r.unclaimLocked(t, err)
	}
	if err != nil {
		delete(r.tickets, t.id) // not decided: a repeat may try again
		for _, a := range t.aliases {
			delete(r.tickets, a)
		}
	}
}

// openingOf names the patient's place in the opening of the line's slot; ok
// is false for a slot that has always been open (it has no opening).
func openingOf(ln *line, doctorID, patientID int64) (openingID, bool) {
	if ln.opensAt.Year() <= 1 {
		return openingID{}, false
	}
	return openingID{patient: patientID, doctor: doctorID, opensAt: ln.opensAt.UnixMicro()}, true
}
