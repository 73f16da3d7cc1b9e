package jetstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"termin/gateway"
	"termin/gateway/limit"
	wroom "termin/gateway/room"
	"termin/shared"
	"termin/shared/poll"
)

// noReads is the database side the room and the list cache are not meant to
// reach in these tests; the reads it leaves out panic if reached.
type noReads struct{ gateway.Reads }

func (noReads) Slot(context.Context, int64) (gateway.Slot, error) {
	return gateway.Slot{}, gateway.ErrSlotNotFound
}

func (noReads) ListSlots(context.Context, int64, shared.Date) ([]gateway.Slot, error) {
	return nil, nil
}

func (noReads) Appointment(context.Context, int64) (gateway.Appointment, error) {
	return gateway.Appointment{}, gateway.ErrAppointmentNotFound
}

// TestFollowSlotsAppliesEveryAnnouncement: a batch's states in one message
// (an array) and a single state (an object) both reach the waiting room; an
// undecodable announcement changes nothing and stops nothing.
func TestFollowSlotsAppliesEveryAnnouncement(t *testing.T) {
	b := newBus(t)
	q := b.gateway()
	room := wroom.New(gateway.DefaultRoomConfig(), q, noReads{}, quiet())
	if err := q.FollowSlots(room, gateway.NewSlotLists(noReads{}, time.Second, time.UTC)); err != nil {
		t.Fatal(err)
	}
	subject := b.cfg.Namespace.Subject(shared.SlotStateSubject) + ".42"
	batch, _ := json.Marshal([]shared.SlotState{{SlotID: 1, DoctorID: 42, Left: 0, Holders: []int64{7}},
		{SlotID: 2, DoctorID: 42, Left: 0}})
	single, _ := json.Marshal(shared.SlotState{SlotID: 3, DoctorID: 42, Left: 0})
	for _, data := range [][]byte{[]byte("{not json"), batch, single} {
		if err := b.nc.Publish(subject, data); err != nil {
			t.Fatal(err)
		}
	}
	poll.For(t, 5*time.Second, 10*time.Millisecond, func() error {
		for _, slot := range []int64{1, 2, 3} {
			if !room.KnownFull(slot, 8) {
				return fmt.Errorf("slot %d not known full", slot)
			}
		}
		return nil
	})
	if room.KnownFull(1, 7) {
		t.Error("slot 1's holder is refused as if the slot were full for it")
	}
}

// TestShareAttemptsHoldsTheLimitAcrossGateways: attempts made at one gateway
// count at the other within the exchange interval, and a gateway does not
// count its own attempts twice.
func TestShareAttemptsHoldsTheLimitAcrossGateways(t *testing.T) {
	b := newBus(t)
	one, two := limit.New(5, time.Minute, time.Now), limit.New(5, time.Minute, time.Now)
	for _, l := range []*limit.Limiter{one, two} {
		if err := b.gateway().ShareAttempts(t.Context(), l, 10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	for key := range uint64(5) {
		if ok, _ := one.Allow(7, key); !ok {
			t.Fatalf("attempt %d refused below the limit", key)
		}
	}
	poll.For(t, 5*time.Second, 10*time.Millisecond, func() error {
		if n := two.Attempts(7); n != 5 {
			return fmt.Errorf("the other gateway counts %d attempts of patient 7, want 5", n)
		}
		return nil
	})
	if ok, _ := two.Allow(7, 99); ok {
		t.Error("the other gateway allowed a sixth attempt")
	}
	if n := one.Attempts(7); n != 5 {
		t.Errorf("the first gateway counts %d attempts, want its own 5 once", n)
	}
}
