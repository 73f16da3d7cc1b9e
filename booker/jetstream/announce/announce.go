// Package announce tells every gateway, on the bus, when a slot fills or
// gets room again (with the patients holding its places), so that gateways
// refuse a known-full slot without queueing. The booker's workers, its hold
// expiry and the waitlist's offers announce through it.
package announce

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"termin/booker"
	"termin/shared"
)

// HolderReader lists who holds the places of each of the slots, by slot.
type HolderReader interface {
	Holders(ctx context.Context, slotIDs []int64) (map[int64][]int64, error)
}

// Announcer tells every gateway when a slot fills or gets room again, so that
// gateways refuse a known-full slot without queueing and drop stale slot lists.
type Announcer struct {
	Conn *nats.Conn
	// Namespace is the system's: the gateways listen in it.
	Namespace shared.Namespace
	Holders   HolderReader
	// Refresh is the least time between two announcements of one full slot
	// made because of refusals; the gateways' marks last longer.
	Refresh time.Duration
	// MaxTracked bounds the slots whose last refusal-driven announcement is
	// remembered; 0 means DefaultMaxTracked. Past it the entries older than
	// Refresh are dropped (they no longer hold anything back), and if none
	// is, all are: the worst case is one extra announcement per slot.
	MaxTracked int
	mu         sync.Mutex
	last       map[int64]time.Time // slot id → time of the last refusal-driven announcement
}

// DefaultMaxTracked is far above the slots refused within one Refresh.
const DefaultMaxTracked = 100_000

// Booked is the slot's state after a new booking. A full slot's holders come
// with the booking when the deciding transaction learned them.
func (a *Announcer) Booked(b booker.Booking) shared.SlotState {
	s := slotState(b.SlotID, b.DoctorID, b.StartAt, b.Left)
	s.Holders = b.Holders
	return s
}

// Cancelled is the slot's state after a cancellation made room.
func (a *Announcer) Cancelled(c booker.Cancellation) shared.SlotState {
	return slotState(c.SlotID, c.DoctorID, c.StartAt, c.Left)
}

// Moved is both slots' states after a reschedule: the new one's places
// after the move (its holders are read by Send when it is full), and the
// room the move made in the old one.
func (a *Announcer) Moved(r booker.Rescheduling) []shared.SlotState {
	return []shared.SlotState{slotState(r.SlotID, r.DoctorID, r.StartAt, r.Left),
		slotState(r.FromSlotID, r.FromDoctorID, r.FromStartAt, r.FromLeft)}
}

// Expired is the state of each slot an expired hold gave a place back to.
func (a *Announcer) Expired(e booker.Expiry) []shared.SlotState {
	states := make([]shared.SlotState, 0, len(e.Slots))
	for _, f := range e.Slots {
		states = append(states, slotState(f.SlotID, f.DoctorID, f.StartAt, f.Left))
	}
	return states
}

// slotState is one slot's announcement: where it is and the places it has left.
func slotState(slot, doctor int64, startAt time.Time, left int) shared.SlotState {
	return shared.SlotState{SlotID: slot, DoctorID: doctor, StartAt: startAt.UTC().Format(time.RFC3339), Left: left}
}

// Refused re-announces a full slot after a SLOT_FULL decision, at most once per
// Refresh, which keeps the gateways' marks alive during a burst; ok is false
// when it is not yet time.
func (a *Announcer) Refused(ctx context.Context, slotID int64) (s shared.SlotState, ok bool) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if last, ok := a.last[slotID]; ok && now.Sub(last) < a.Refresh {
		return s, false
	}
	a.makeRoomLocked(now)
	a.last[slotID] = now
	return shared.SlotState{SlotID: slotID, Left: 0}, true
}

func (a *Announcer) makeRoomLocked(now time.Time) {
	limit := a.MaxTracked
	if limit <= 0 {
		limit = DefaultMaxTracked
	}
	if a.last == nil {
		a.last = make(map[int64]time.Time)
	}
	if len(a.last) < limit {
		return
	}
	for id, at := range a.last {
		if now.Sub(at) >= a.Refresh {
			delete(a.last, id)
		}
	}
	if len(a.last) >= limit {
		clear(a.last)
	}
}

// Tracked is the number of slots whose last announcement is remembered.
func (a *Announcer) Tracked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.last)
}

// Send announces a batch's slot states in one message: at 7:00 nearly every
// booking fills its slot, and a message per slot cost every gateway a
// message and a decode per booking. The full slots whose holders are not
// known yet (slots earlier batches filled, re-announced for this one's
// refusals) have them read first, in one read for all of them, while the
// lane waits. Without holders a full mark could refuse a holder's repeat,
// so such slots are left out when the read fails.
func (a *Announcer) Send(ctx context.Context, states []shared.SlotState) {
	if a == nil || len(states) == 0 {
		return
	}
	var unknown []int64
	for _, s := range states {
		if s.Left == 0 && s.Holders == nil {
			unknown = append(unknown, s.SlotID)
		}
	}
	var holders map[int64][]int64
	if len(unknown) > 0 {
		holders, _ = a.Holders.Holders(ctx, unknown)
	}
	out := states[:0]
	for _, s := range states {
		if s.Left == 0 && s.Holders == nil {
			if holders == nil {
				continue
			}
			s.Holders = holders[s.SlotID]
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return
	}
	data, _ := json.Marshal(out)
	_ = a.Conn.Publish(a.Namespace.Subject(shared.SlotStateSubject)+"."+shared.SlotStatesToken, data)
}
