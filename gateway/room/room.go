// Package room is the gateway's virtual waiting room: per slot a line whose
// requests go into the durable queue only as places can still be had, a
// pre-queue drawn by lottery at the opening, and the refusal of everyone
// still waiting once the slot is full. Its Exchange shares each slot's
// admissions and each patient's one place per opening with the other
// gateways. Front (in the gateway's root) talks to it through the
// gateway.WaitingRoom port; gateway/app wires it to its adapters.
package room

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"termin/gateway"
	"termin/shared"

	"golang.org/x/sync/singleflight"
)

// Room is the virtual waiting room in front of the queue. Per slot it lets at
// most (places left + margin) requests into the queue at once; the others wait
// in arrival order and are admitted as decisions come back. When the slot
// fills, every request still waiting is refused at once. Requests that arrive
// shortly before the slot opens join a pre-queue that is admitted in a seeded
// random order at the opening. What it shares with the other gateways (their
// loads, each patient's one place per opening) is its Exchange's, under the
// same lock.
type Room struct {
	cfg     gateway.RoomConfig
	queue   gateway.Submitter
	slots   gateway.SlotSource
	log     *slog.Logger
	now     func() time.Time
	mu      sync.Mutex
	lines   map[int64]*line
	tickets map[ticketID]*ticket
	// openings holds each patient's undecided ticket per opening.
	openings map[openingID]*ticket
	// ex is this gateway among the others: their loads and places.
	ex *Exchange
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

var _ gateway.WaitingRoom = (*Room)(nil)

// Option changes how a room is made.
type Option func(*Room)

// WithClock gives the room another clock than time.Now, so that a test can
// move through an opening or a full mark's lifetime without waiting.
func WithClock(now func() time.Time) Option { return func(r *Room) { r.now = now } }

// New makes a waiting room: queue takes the admitted requests, slots
// reads a slot's places when the room does not know them. Those places must
// be fresh (read within about a second): they are what the room admits by.
func New(cfg gateway.RoomConfig, queue gateway.Submitter, slots gateway.SlotSource, log *slog.Logger, opts ...Option) *Room {
	if cfg == (gateway.RoomConfig{}) {
		cfg = gateway.DefaultRoomConfig()
	}
	log.Debug("waiting room", "margin", cfg.Margin, "max_tickets", cfg.MaxTickets)
	r := &Room{cfg: cfg, queue: queue, slots: slots, log: log, now: time.Now,
		lines: make(map[int64]*line), tickets: make(map[ticketID]*ticket),
		openings: make(map[openingID]*ticket)}
	r.ex = newExchange(r)
	for _, o := range opts {
		o(r)
	}
	r.ex.placesSince = r.now()
	return r
}

// Exchange is the room's side of what the gateways tell each other: their
// loads on each line and each patient's place in an opening.
func (r *Room) Exchange() *Exchange { return r.ex }

// Join finds the request's ticket or gives it a new one at the end of its
// slot's line, admitting whoever may go into the queue now.
func (r *Room) Join(ctx context.Context, slot gateway.Slot, req gateway.BookRequest) (gateway.Ticket, error) {
	t, err := r.join(ctx, slot, req)
	if err != nil {
		return nil, err // not a nil *ticket in a non-nil gateway.Ticket
	}
	return t, nil
}

func (r *Room) join(ctx context.Context, slot gateway.Slot, req gateway.BookRequest) (*ticket, error) {
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
	return nil, gateway.ErrUnavailable // the line vanished again and again: let the client repeat
}

// enterLocked puts a new ticket in the line (or its pre-queue).
func (r *Room) enterLocked(ln *line, slot gateway.Slot, req gateway.BookRequest, id ticketID) (*ticket, error) {
	now := r.now()
	switch {
	case now.Before(ln.opensAt.Add(-r.cfg.PreWindow)):
		return nil, gateway.ErrSlotClosed
	case len(r.tickets) >= r.cfg.MaxTickets:
		return nil, gateway.ErrUnavailable
	}
	oid, inOpen := openingOf(ln, slot.DoctorID, req.PatientID)
	if held := r.openings[oid]; inOpen && held != nil {
		// The patient's place in this opening answers every key it sends there.
		held.aliases = append(held.aliases, id)
		r.tickets[id] = held
		return held, nil
	}
	if rp, ok := r.ex.heldRemote(oid); inOpen && ok {
		return r.ex.followLocked(ln, req, id, slot.DoctorID, oid, rp), nil
	}
	t := &ticket{id: id, room: r, line: ln, req: req, doctorID: slot.DoctorID, done: make(chan struct{}), madeAt: now,
		opening: oid, inOpen: inOpen}
	r.tickets[id] = t
	if inOpen {
		r.openings[oid] = t
		if r.ex.places != nil && !r.ex.aloneLocked() {
			t.claiming = make(chan struct{})
			go r.ex.claim(t) // lined up once the gateways' record gives it the place
			return t, nil
		}
		r.ex.noteLocked(t, "")
	}
	r.lineUpLocked(ln, t)
	return t, nil
}

// lineUpLocked puts a ticket holding its place at the end of its line, or of
// the line's pre-queue before the opening.
func (r *Room) lineUpLocked(ln *line, t *ticket) {
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
	r.ex.touchLocked(ln)
	r.admitLocked(ln)
}

// currentLine returns the slot's line if the room knows its places: it
// exists, and has room, a full mark, or was read from the database within
// the last second. Otherwise the caller learns them first. A line closed to
// bookings (before its pre-opening window, or blocked by the practice) is
// read again at most once a second too: its opening may have moved since,
// as when the practice unblocks it.
func (r *Room) currentLine(slotID int64) *line {
	ln := r.lines[slotID]
	now := r.now()
	switch {
	case ln == nil:
		return nil
	case now.Before(ln.opensAt.Add(-r.cfg.PreWindow)):
		return r.unlessStale(ln, now)
	case ln.left > 0 || now.Before(ln.fullUntil):
		return ln
	}
	return r.unlessStale(ln, now)
}

// unlessStale is ln while it was read within the last second, else nil.
func (r *Room) unlessStale(ln *line, now time.Time) *line {
	if now.Before(ln.checkAt) {
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
		if ln.demand() == 0 {
			ln.opensAt = fresh.OpensAt // nobody waits for the opening it had: it may have moved
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
		ln.draw(r.cfg.Secret, r.log)
	}
	// With no place left the margin still lets a few through: the booker then
	// gives the precise answer (a holder's new key is ALREADY_BOOKED, not full).
	if len(ln.waiting) == 0 {
		return
	}
	limit := ln.left + r.cfg.Margin
	if len(r.ex.peers) > 0 {
		limit = r.ex.shareLocked(ln, limit)
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
		r.ex.touchLocked(ln) // the others count this gateway's commands out
		r.inflight++
		go r.enqueue(t)
	}
}

// enqueue puts an admitted ticket's command in the queue and waits for its
// decision, however long that takes: the ticket outlives the HTTP request
// that made it, and the next requests are admitted as it is decided.
func (r *Room) enqueue(t *ticket) {
	req := t.req
	ch, err := r.submit(t.doctorID, shared.BookingMsgID(req.PatientID, req.IdempotencyKey), req.Command())
	if err != nil {
		r.decide(t, shared.Decision{}, err)
		return
	}
	d, ok := <-ch
	if !ok {
		r.decide(t, shared.Decision{}, fmt.Errorf("%w: no decision arrived", gateway.ErrUnavailable))
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
		if ch, err = r.queue.Submit(context.Background(), doctorID, msgID, cmd); err == nil || !errors.Is(err, gateway.ErrUncertain) {
			return ch, err
		}
	}
	return nil, err
}

// decide closes an admitted ticket with the booker's decision (or err when the
// queue refused it) and lets the next requests in.
func (r *Room) decide(t *ticket, d shared.Decision, err error) {
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
func (r *Room) releaseLocked(t *ticket) {
	n := len(t.line.inflight)
	if t.line.inflight = remove(t.line.inflight, t); len(t.line.inflight) == n {
		return // released before (a stale ticket swept, then decided)
	}
	r.ex.touchLocked(t.line)
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
// and the booker, which it reaches through the margin, tries them all. So
// does a resent key (BookRequest.Resent): its earlier command may be the
// one that filled the slot, which the holders a decision brings do not say.
func (r *Room) refuseWaitingLocked(ln *line) {
	full := shared.Decision{V: shared.Version, Code: shared.CodeSlotFull, Detail: gateway.ErrSlotFull.Msg, SlotID: ln.slotID}
	keep := func(ts []*ticket) []*ticket {
		var kept []*ticket
		for _, t := range ts {
			_, holds := ln.holders[t.req.PatientID]
			switch {
			case t.withdrawn: // it follows another gateway's place
			case len(t.req.SlotIDs) > 0 || holds || t.req.Resent:
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
	r.ex.touchLocked(ln)
	r.admitLocked(ln)
}

func (r *Room) closeLocked(t *ticket, d shared.Decision, err error) {
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
			code = gateway.CodeReleased
		}
		r.ex.noteLocked(t, code)
		r.ex.unclaimLocked(t, err)
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
