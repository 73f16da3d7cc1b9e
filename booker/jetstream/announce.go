package jetstream

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"termin/booker"
	"termin/shared"
)

// HolderReader lists who holds a slot's places.
type HolderReader interface {
	Holders(ctx context.Context, slotID int64) ([]int64, error)
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
	last    sync.Map // slot id → time of the last refusal-driven announcement
}

// Booked announces the slot's places after a new booking.
func (a *Announcer) Booked(ctx context.Context, b booker.Booking) {
	a.send(ctx, shared.SlotState{SlotID: b.SlotID, DoctorID: b.DoctorID,
		StartAt: b.StartAt.UTC().Format(time.RFC3339), Left: b.Left})
}

// Cancelled announces the room a cancellation made.
func (a *Announcer) Cancelled(ctx context.Context, c booker.Cancellation) {
	a.send(ctx, shared.SlotState{SlotID: c.SlotID, DoctorID: c.DoctorID,
		StartAt: c.StartAt.UTC().Format(time.RFC3339), Left: c.Left})
}

// Moved announces both slots of a reschedule: the new one's places after
// the move, and the room it made in the old one.
func (a *Announcer) Moved(ctx context.Context, r booker.Rescheduling) {
	a.send(ctx, shared.SlotState{SlotID: r.SlotID, DoctorID: r.DoctorID,
		StartAt: r.StartAt.UTC().Format(time.RFC3339), Left: r.Left})
	a.send(ctx, shared.SlotState{SlotID: r.FromSlotID, DoctorID: r.FromDoctorID,
		StartAt: r.FromStartAt.UTC().Format(time.RFC3339), Left: r.FromLeft})
}

// Refused re-announces a full slot after a SLOT_FULL decision, at most once per
// Refresh, which keeps the gateways' marks alive during a burst.
func (a *Announcer) Refused(ctx context.Context, slotID int64) {
	if a == nil {
		return
	}
	now := time.Now()
	if last, ok := a.last.Load(slotID); ok && now.Sub(last.(time.Time)) < a.Refresh {
		return
	}
	a.last.Store(slotID, now)
	a.send(ctx, shared.SlotState{SlotID: slotID, Left: 0})
}

func (a *Announcer) send(ctx context.Context, s shared.SlotState) {
	if a == nil {
		return
	}
	if s.Left == 0 {
		holders, err := a.Holders.Holders(ctx, s.SlotID)
		if err != nil {
			return // without holders a full mark could refuse a holder's repeat
		}
		s.Holders = holders
	}
	data, _ := json.Marshal(s)
	_ = a.Conn.Publish(a.Namespace.Subject(shared.SlotStateSubject)+"."+strconv.FormatInt(s.DoctorID, 10), data)
}
