package jetstream_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"termin/gateway"
	"termin/shared"
)

// TestSubmitYieldsTheBookersReply: a submitted command reaches the booker
// with a reply subject of this gateway, and its decision comes back on it.
func TestSubmitYieldsTheBookersReply(t *testing.T) {
	b := newBus(t)
	seen := b.decideAll()
	q := b.gateway()
	ch, err := q.Submit(t.Context(), 42, shared.BookingMsgID(7, "k"), booking(1, 7, "k"))
	if err != nil {
		t.Fatal(err)
	}
	d, ok := decision(t, ch)
	if !ok || d.Code != shared.Booked || d.Replay || d.Appointment.ID != 1007 {
		t.Fatalf("decision %+v (ok %v), want the booking of appointment 1007", d, ok)
	}
	if cmd := <-seen; cmd.PatientID != 7 || cmd.RequestID == "" {
		t.Errorf("the booker saw %+v; want patient 7 with the gateway's reply token", cmd)
	}
}

// TestSubmitOfADuplicateYieldsTheRecord: a repeat published by another
// gateway while the first is on the stream is dropped by the stream; the
// repeat's decision is the one on record, as a replay.
func TestSubmitOfADuplicateYieldsTheRecord(t *testing.T) {
	b := newBus(t)
	first, other := b.gateway(), b.gateway()
	msgID := shared.BookingMsgID(7, "k")
	ch1, err := first.Submit(t.Context(), 42, msgID, booking(1, 7, "k"))
	if err != nil {
		t.Fatal(err)
	}
	ch2, err := other.Submit(t.Context(), 42, msgID, booking(1, 7, "k"))
	if err != nil {
		t.Fatal(err)
	}
	seen := b.decideAll() // the booker starts after both publishes: the stream holds one
	d1, _ := decision(t, ch1)
	d2, ok := decision(t, ch2)
	if !ok || !d2.Replay || d2.Appointment == nil || d2.Appointment.ID != d1.Appointment.ID {
		t.Fatalf("the duplicate got %+v (ok %v); want a replay of %+v", d2, ok, d1)
	}
	select {
	case cmd := <-seen:
		if cmd2 := len(seen); cmd2 != 0 {
			t.Errorf("the booker saw %d more commands after %+v; want the key once", cmd2, cmd)
		}
	default:
		t.Error("the booker saw no command")
	}
}

// TestSubmitWithoutAStreamIsUnavailable: when no stream takes the command
// (no booker has made it, or it is full) the gateway answers 503 at once.
func TestSubmitWithoutAStreamIsUnavailable(t *testing.T) {
	b := newBus(t)
	b.cfg.SubjectPrefix = "nobody-listens"
	b.cfg.PublishTimeout = 500 * time.Millisecond
	q := b.gateway()
	if _, err := q.Submit(t.Context(), 42, "m", booking(1, 7, "k")); !errors.Is(err, gateway.ErrUnavailable) {
		t.Fatalf("err %v, want ErrUnavailable", err)
	}
}

// TestRecordedReadsTheDecisionsBucket: a key's decision is found on record,
// whichever gateway took the first request; a key never decided is not.
func TestRecordedReadsTheDecisionsBucket(t *testing.T) {
	b := newBus(t)
	data, _ := json.Marshal(shared.Decision{V: shared.Version, Code: shared.CodeSlotFull, SlotID: 1})
	if _, err := b.kv.Create(t.Context(), shared.DecisionKey(7, "k"), data); err != nil {
		t.Fatal(err)
	}
	q := b.gateway()
	if d, ok, err := q.Recorded(t.Context(), 7, "k"); err != nil || !ok || d.Code != shared.CodeSlotFull {
		t.Errorf("Recorded(7, k) = %+v, %v, %v; want the SLOT_FULL on record", d, ok, err)
	}
	if _, ok, err := q.Recorded(t.Context(), 7, "other"); err != nil || ok {
		t.Errorf("Recorded(7, other) = %v, %v; want nothing on record", ok, err)
	}
}
