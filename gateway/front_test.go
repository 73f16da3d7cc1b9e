package gateway_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"termin/gateway"
	"termin/gateway/limit"
	wroom "termin/gateway/room"
	"termin/shared"
	"termin/shared/poll"
)

// instantQueue decides every command at once as a new booking and has
// nothing on record yet, as a booker that replies before its record lands.
type instantQueue struct{}

func (instantQueue) Submit(_ context.Context, _ int64, _ string, cmd shared.Command) (<-chan shared.Decision, error) {
	ch := make(chan shared.Decision, 1)
	ch <- shared.Decision{V: shared.Version, Code: shared.Booked, SlotID: cmd.SlotID,
		Appointment: &shared.Appointment{ID: 9, SlotID: cmd.SlotID, PatientID: cmd.PatientID, Status: "BOOKED"}}
	return ch, nil
}

func (instantQueue) Recorded(context.Context, int64, string) (shared.Decision, bool, error) {
	return shared.Decision{}, false, nil
}

func (instantQueue) Ready() error { return nil }

// TestRepeatOfADecidedTicketIsAReplay: the key's first request is told its
// booking was created (201); a repeat that finds the same decided ticket,
// before any record of the key, is told it already booked (200).
func TestRepeatOfADecidedTicketIsAReplay(t *testing.T) {
	slot := gateway.Slot{ID: 7, DoctorID: 1, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	q := instantQueue{}
	front := newFront(q, slot, time.Second)
	for i, wantReplay := range []bool{false, true, true} {
		res, err := front.RequestBooking(t.Context(), request(slot, 5))
		if err != nil || res.Queued || res.Appointment.ID != 9 || res.Replay != wantReplay {
			t.Fatalf("request %d: %+v, %v; want appointment 9 with replay %v", i+1, res, err, wantReplay)
		}
	}
}

// stalledQueue takes commands and decides none, as a booker far behind, and
// counts the reads of the decisions record.
type stalledQueue struct{ reads atomic.Int32 }

func (*stalledQueue) Submit(context.Context, int64, string, shared.Command) (<-chan shared.Decision, error) {
	return make(chan shared.Decision), nil
}

func (q *stalledQueue) Recorded(context.Context, int64, string) (shared.Decision, bool, error) {
	q.reads.Add(1)
	return shared.Decision{}, false, nil
}

func (*stalledQueue) Ready() error { return nil }

// TestRepeatOfAWaitingTicketReadsNoRecord: while the key's ticket waits in
// the room, its repeats are answered 202 from the room without a read of
// the decisions record.
func TestRepeatOfAWaitingTicketReadsNoRecord(t *testing.T) {
	slot := gateway.Slot{ID: 7, DoctorID: 1, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	q := &stalledQueue{}
	front := newFront(q, slot, 20*time.Millisecond)
	for i := range 3 {
		res, err := front.RequestBooking(t.Context(), request(slot, 5))
		if err != nil || !res.Queued {
			t.Fatalf("request %d: %+v, %v; want 202", i+1, res, err)
		}
	}
	if n := q.reads.Load(); n != 0 {
		t.Errorf("%d reads of the record for repeats of a waiting ticket, want none", n)
	}
}

// laterQueue decides a command when the test sends the decision, as a
// booker behind that catches up, and counts the reads of the record.
type laterQueue struct {
	stalledQueue
	decisions chan shared.Decision
}

func (q *laterQueue) Submit(context.Context, int64, string, shared.Command) (<-chan shared.Decision, error) {
	return q.decisions, nil
}

// TestRepeatOfATicketDecidedAfter202ReadsNoRecord: a key answered 202 whose
// ticket is decided before the patient repeats is answered by its ticket,
// not by a read of the record, with a 201: the decision's first answer. Once
// told, the key's repeats read the record again (it shows the appointment as
// it is now), and are 200s.
func TestRepeatOfATicketDecidedAfter202ReadsNoRecord(t *testing.T) {
	slot := gateway.Slot{ID: 7, DoctorID: 1, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	q := &laterQueue{decisions: make(chan shared.Decision)}
	front := newFront(q, slot, 20*time.Millisecond)
	front.Limiter = limit.New(1000, 10*time.Second, time.Now) // room for the polls
	if res, err := front.RequestBooking(t.Context(), request(slot, 5)); err != nil || !res.Queued {
		t.Fatalf("first request: %+v, %v; want 202", res, err)
	}
	q.decisions <- shared.Decision{V: shared.Version, Code: shared.Booked, SlotID: slot.ID,
		Appointment: &shared.Appointment{ID: 9, SlotID: slot.ID, PatientID: 5, Status: "BOOKED"}}
	for i, want := range []struct {
		replay bool
		reads  int32
	}{{false, 0}, {true, 1}} {
		var res gateway.BookingResult
		var err error
		poll.For(t, time.Second, time.Millisecond, func() error {
			res, err = front.RequestBooking(t.Context(), request(slot, 5))
			if err == nil && res.Queued {
				return fmt.Errorf("repeat %d still 202 (position %d)", i+1, res.Position)
			}
			return nil
		})
		if err != nil || res.Appointment.ID != 9 || res.Replay != want.replay {
			t.Fatalf("repeat %d: %+v, %v; want appointment 9 with replay %v", i+1, res, err, want.replay)
		}
		if n := q.reads.Load(); n != want.reads {
			t.Errorf("after repeat %d: %d reads of the record, want %d", i+1, n, want.reads)
		}
	}
}

// unreadableQueue decides every command at once, as instantQueue, but
// cannot read its record: the bus too busy to answer within its timeout.
type unreadableQueue struct{ instantQueue }

func (unreadableQueue) Recorded(context.Context, int64, string) (shared.Decision, bool, error) {
	return shared.Decision{}, false, gateway.ErrUnavailable
}

// TestRepeatWhoseRecordCannotBeReadJoinsTheLine: a repeat of a key the room
// no longer holds, whose record cannot be read, is not refused 503: it joins
// the line, and its command's decision answers it.
func TestRepeatWhoseRecordCannotBeReadJoinsTheLine(t *testing.T) {
	slot := gateway.Slot{ID: 7, DoctorID: 1, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	q := unreadableQueue{}
	front := newFront(q, slot, time.Second)
	if _, err := front.RequestBooking(t.Context(), request(slot, 5)); err != nil {
		t.Fatalf("first request: %v", err)
	}
	front.Room = newFront(q, slot, time.Second).Room // the ticket forgotten
	res, err := front.RequestBooking(t.Context(), request(slot, 5))
	if err != nil || res.Queued || res.Appointment.ID != 9 {
		t.Fatalf("repeat: %+v, %v; want its command's decision, appointment 9", res, err)
	}
}

// newFront is a front for the one slot over q, with a room of the default
// configuration and a limiter of five requests in ten seconds.
func newFront(q gateway.Queue, slot gateway.Slot, budget time.Duration) *gateway.Front {
	return &gateway.Front{Queue: q, Slots: fixedSlot(slot), Budget: budget,
		Room:    wroom.New(gateway.DefaultRoomConfig(), q, fixedSlot(slot), quiet()),
		Limiter: limit.New(5, 10*time.Second, time.Now)}
}
