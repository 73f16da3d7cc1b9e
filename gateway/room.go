package gateway

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"termin/booker"
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
	// Seed drives the opening lottery; the same seed gives the same order.
	Seed uint64
}

// DefaultRoomConfig is the waiting room of a gateway at a 7:00 opening.
func DefaultRoomConfig() RoomConfig {
	return RoomConfig{Margin: 4, MaxTickets: 200_000, MaxInflight: 4096, FullFor: 30 * time.Second,
		PreWindow: 10 * time.Minute, Seed: rand.Uint64()}
}

// Room is the virtual waiting room in front of the queue. Per slot it lets at
// most (places left + margin) requests into the queue at once; the others wait
// in arrival order and are admitted as decisions come back. When the slot
// fills, every request still waiting is refused at once. Requests that arrive
// shortly before the slot opens join a pre-queue that is admitted in a seeded
// random order at the opening.
type Room struct {
	cfg    RoomConfig
	submit func(*Ticket)
	fresh  func(ctx context.Context, slotID int64) (booker.Slot, error)
	log    *slog.Logger
	// Now is the room's clock; tests replace it.
	Now     func() time.Time
	mu      sync.Mutex
	lines   map[int64]*line
	tickets map[ticketID]*Ticket
	// inflight counts admitted, undecided tickets; starved are the lines that
	// have room but wait for the gateway-wide bound, in the order they hit it.
	inflight int
	starved  []*line
	reads    singleflight.Group
}

// NewRoom makes a waiting room; submit puts an admitted ticket in the queue
// (it runs in its own goroutine and must end in Decide), and fresh reads a
// slot's places from the database when the room does not know them.
func NewRoom(cfg RoomConfig, submit func(*Ticket), fresh func(context.Context, int64) (booker.Slot, error), log *slog.Logger) *Room {
	if cfg == (RoomConfig{}) {
		cfg = DefaultRoomConfig()
	}
	log.Info("waiting room", "lottery_seed", cfg.Seed, "margin", cfg.Margin, "max_tickets", cfg.MaxTickets)
	return &Room{cfg: cfg, submit: submit, fresh: fresh, log: log, Now: time.Now,
		lines: make(map[int64]*line), tickets: make(map[ticketID]*Ticket)}
}

// KnownFull reports whether the slot is known to be full and the patient holds
// no place in it. It allocates nothing: it is the path most requests of a
// burst take.
func (r *Room) KnownFull(slotID, patient int64) bool {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	ln := r.lines[slotID]
	return ln != nil && ln.knownFull(now, patient)
}

// Join finds the request's ticket or gives it a new one at the end of its
// slot's line, admitting whoever may go into the queue now.
func (r *Room) Join(ctx context.Context, slot booker.Slot, req booker.BookRequest) (*Ticket, error) {
	id := ticketID{req.PatientID, req.IdempotencyKey}
	for range 3 {
		r.mu.Lock()
		if t := r.tickets[id]; t != nil {
			r.mu.Unlock()
			return t, nil
		}
		if ln := r.currentLine(slot.ID); ln != nil {
			t, err := r.enterLocked(ln, slot, req, id)
			r.mu.Unlock()
			return t, err
		}
		r.mu.Unlock()
		if err := r.learn(ctx, slot.ID); err != nil {
			return nil, err
		}
	}
	return nil, ErrUnavailable // the line vanished again and again: let the client repeat
}

// enterLocked puts a new ticket in the line (or its pre-queue).
func (r *Room) enterLocked(ln *line, slot booker.Slot, req booker.BookRequest, id ticketID) (*Ticket, error) {
	now := r.Now()
	switch {
	case now.Before(ln.opensAt.Add(-r.cfg.PreWindow)):
		return nil, booker.ErrSlotClosed
	case len(r.tickets) >= r.cfg.MaxTickets:
		return nil, ErrUnavailable
	}
	t := &Ticket{id: id, line: ln, Request: req, DoctorID: slot.DoctorID, done: make(chan struct{}), madeAt: now}
	r.tickets[id] = t
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
	r.admitLocked(ln)
	return t, nil
}

// currentLine returns the slot's line if the room knows its places: it
// exists, and has room, a full mark, or was read from the database within
// the last second. Otherwise the caller learns them first.
func (r *Room) currentLine(slotID int64) *line {
	ln := r.lines[slotID]
	now := r.Now()
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
		fresh, err := r.fresh(ctx, slotID)
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
		ln.left, ln.checkAt = fresh.Available(), r.Now().Add(time.Second)
		return nil, nil
	})
	return err
}

// Prime gives the room the places of slots read at readAt that it has no
// line for yet, so that the first click on each of them at an opening finds
// its line ready instead of waiting for a read.
func (r *Room) Prime(slots []booker.Slot, readAt time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range slots {
		if r.lines[s.ID] != nil {
			continue
		}
		r.lines[s.ID] = &line{slotID: s.ID, opensAt: s.OpensAt, left: s.Available(), checkAt: readAt.Add(time.Second)}
	}
}

// Position is the ticket's place in its line and the wait to suggest.
func (r *Room) Position(t *Ticket) (int, time.Duration) {
	p, retry, _, _ := r.Outlook(t)
	return p, retry
}

// Outlook is Position with the estimated time to the ticket's decision;
// known is false while its slot's pace is not measured yet.
func (r *Room) Outlook(t *Ticket) (position int, retry, eta time.Duration, known bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.Now()
	position = t.line.position(t)
	eta, known = t.line.eta(now, position)
	return position, t.line.wait(now, position), eta, known
}

// open runs the opening lottery: the pre-queue goes first, in a random order
// drawn from the seed and the slot, then everyone who came after the opening.
func (r *Room) open(ln *line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rng := rand.New(rand.NewPCG(r.cfg.Seed, uint64(ln.slotID)))
	rng.Shuffle(len(ln.pre), func(i, j int) { ln.pre[i], ln.pre[j] = ln.pre[j], ln.pre[i] })
	r.log.Info("opening lottery", "slot", ln.slotID, "seed", r.cfg.Seed, "entrants", len(ln.pre))
	for _, t := range ln.pre {
		t.pre = false
	}
	ln.waiting = append(ln.pre, ln.waiting...)
	ln.pre = nil
	for i, t := range ln.waiting {
		t.seq = ln.admitted + i
	}
	r.admitLocked(ln)
}

// admitLocked moves waiting tickets into the queue while the slot has room.
func (r *Room) admitLocked(ln *line) {
	if r.Now().Before(ln.opensAt) {
		return
	}
	// With no place left the margin still lets a few through: the booker then
	// gives the precise answer (a holder's new key is ALREADY_BOOKED, not full).
	for len(ln.waiting) > 0 && len(ln.inflight) < ln.left+r.cfg.Margin {
		if r.cfg.MaxInflight > 0 && r.inflight >= r.cfg.MaxInflight {
			if !ln.starved {
				ln.starved = true
				r.starved = append(r.starved, ln)
			}
			return
		}
		t := ln.waiting[0]
		ln.waiting = ln.waiting[1:]
		ln.admitted++
		t.admitted = true
		ln.inflight = append(ln.inflight, t)
		r.inflight++
		go r.submit(t)
	}
}

// releaseLocked takes an admitted ticket out of the queue's count and lets
// the lines waiting for the gateway-wide bound go on, first come first.
func (r *Room) releaseLocked(t *Ticket) {
	n := len(t.line.inflight)
	if t.line.inflight = remove(t.line.inflight, t); len(t.line.inflight) == n {
		return // released before (a stale ticket swept, then decided)
	}
	r.inflight--
	for len(r.starved) > 0 && r.inflight < r.cfg.MaxInflight {
		ln := r.starved[0]
		r.starved = r.starved[1:]
		ln.starved = false
		r.admitLocked(ln)
	}
}

// refuseWaitingLocked answers everyone still waiting for a full slot at once.
func (r *Room) refuseWaitingLocked(ln *line) {
	full := shared.Decision{V: shared.Version, Code: shared.CodeSlotFull, Detail: booker.ErrSlotFull.Msg, SlotID: ln.slotID}
	for _, t := range append(ln.waiting, ln.pre...) {
		r.closeLocked(t, full, nil)
	}
	ln.waiting, ln.pre = nil, nil
}

func (r *Room) closeLocked(t *Ticket, d shared.Decision, err error) {
	select {
	case <-t.done:
		return
	default:
	}
	t.decision, t.err, t.closedAt = d, err, r.Now()
	close(t.done)
	if err != nil {
		delete(r.tickets, t.id) // not decided: a repeat may try again
	}
}
