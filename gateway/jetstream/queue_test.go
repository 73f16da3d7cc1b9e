package jetstream_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"termin/gateway"
	"termin/shared"
)

// TestSubmitYieldsTheBookersReply: a submitted command reaches the booker
// with a reply subject of this gateway, and its decision comes back on it.
func TestSubmitYieldsTheBookersReply(t *testing.T) {
	forEachMode(t, testSubmitYieldsTheBookersReply)
}

func testSubmitYieldsTheBookersReply(t *testing.T, b *bus) {
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
	forEachMode(t, testSubmitOfADuplicateYieldsTheRecord)
}

func testSubmitOfADuplicateYieldsTheRecord(t *testing.T, b *bus) {
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
	d1, ok1 := decision(t, ch1)
	d2, ok2 := decision(t, ch2)
	if b.cfg.ConfirmAfter > 0 && d1.Replay {
		// Sent without a PubAck on two connections, the other gateway's
		// command may have reached the stream first: then it is the one decided.
		d1, d2, ok1, ok2 = d2, d1, ok2, ok1
	}
	if !ok1 || !ok2 || d1.Replay || !d2.Replay || d2.Appointment == nil || d2.Appointment.ID != d1.Appointment.ID {
		t.Fatalf("the duplicate got %+v (ok %v); want a replay of %+v (ok %v)", d2, ok2, d1, ok1)
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

// TestSubmitOfADuplicateYieldsThePlainBookingsRow: the same with a booker
// that keeps a plain booking only as its appointment row: the duplicate's
// decision is read from the row, as a replay, and the gateway whose
// command it was is told it new.
func TestSubmitOfADuplicateYieldsThePlainBookingsRow(t *testing.T) {
	forEachMode(t, func(t *testing.T, b *bus) {
		b.keepRows()
		testSubmitOfADuplicateYieldsTheRecord(t, b)
	})
}

// forEachMode runs a test with a PubAck awaited for every command and with
// PubAcks only for commands undecided after ConfirmAfter.
func forEachMode(t *testing.T, test func(*testing.T, *bus)) {
	for _, after := range []time.Duration{0, 200 * time.Millisecond} {
		t.Run("ConfirmAfter="+after.String(), func(t *testing.T) {
			b := newBus(t)
			b.cfg.ConfirmAfter = after
			test(t, b)
		})
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

// TestRecordedReadsAPlainBookingsRow: a key without a decision in the
// bucket is read from its appointment row, as the booking it made with the
// row's status now (and its slot now, after a reschedule, beside the slot
// booked); a decision in the bucket comes first.
func TestRecordedReadsAPlainBookingsRow(t *testing.T) {
	b := newBus(t)
	b.keepRows()
	b.rows.put(shared.Command{PatientID: 7, IdempotencyKey: "row", RequestID: "tok"},
		&shared.Appointment{ID: 70, SlotID: 1, PatientID: 7, Status: "CANCELLED"})
	b.rows.put(shared.Command{PatientID: 7, IdempotencyKey: "both"}, &shared.Appointment{ID: 71, SlotID: 1, PatientID: 7})
	b.rows.m[shared.DecisionKey(7, "moved")] = gateway.KeyBooking{BookedSlot: 1,
		Appointment: gateway.Appointment{ID: 72, SlotID: 2, PatientID: 7, Status: gateway.StatusBooked}}
	data, _ := json.Marshal(shared.Decision{V: shared.Version, Code: shared.CodeSlotFull, SlotID: 1})
	if _, err := b.kv.Create(t.Context(), shared.DecisionKey(7, "both"), data); err != nil {
		t.Fatal(err)
	}
	q := b.gateway()
	d, ok, err := q.Recorded(t.Context(), 7, "row")
	if err != nil || !ok || d.Code != shared.Booked || d.SlotID != 1 || d.RequestID != "tok" || d.Appointment == nil ||
		d.Appointment.ID != 70 || d.Appointment.Status != "CANCELLED" || d.Appointment.CreatedAt == "" {
		t.Errorf("Recorded(7, row) = %+v, %v, %v; want the row's booking of appointment 70", d, ok, err)
	}
	if d, ok, err := q.Recorded(t.Context(), 7, "moved"); err != nil || !ok || d.SlotID != 1 || d.Appointment.SlotID != 2 {
		t.Errorf("Recorded(7, moved) = %+v, %v, %v; want slot 1 booked, the appointment now at slot 2", d, ok, err)
	}
	if d, ok, err := q.Recorded(t.Context(), 7, "both"); err != nil || !ok || d.Code != shared.CodeSlotFull {
		t.Errorf("Recorded(7, both) = %+v, %v, %v; want the bucket's SLOT_FULL", d, ok, err)
	}
	if _, ok, err := q.Recorded(t.Context(), 7, "never"); err != nil || ok {
		t.Errorf("Recorded(7, never) = %v, %v; want nothing", ok, err)
	}
}

// TestSubmitAsksForAPubAckOnlyWhenTheDecisionIsLate: with ConfirmAfter a
// command is sent without waiting for the stream's PubAck; a decision that
// comes in time needs none, a late one is preceded by one.
func TestSubmitAsksForAPubAckOnlyWhenTheDecisionIsLate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lateBy    time.Duration
		wantPubAk bool
	}{
		{"decided at once", 0, false},
		{"decided after ConfirmAfter", 600 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBus(t)
			b.cfg.ConfirmAfter = 200 * time.Millisecond
			acks := b.pubAcks()
			q := b.gateway()
			if tc.lateBy == 0 {
				b.decideAll()
			}
			ch, err := q.Submit(t.Context(), 42, shared.BookingMsgID(7, "k"), booking(1, 7, "k"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.lateBy > 0 {
				time.Sleep(tc.lateBy) // the booker is away: the decision can only come late
				b.decideAll()
			}
			if d, ok := decision(t, ch); !ok || d.Code != shared.Booked || d.Replay {
				t.Fatalf("decision %+v (ok %v), want the booking", d, ok)
			}
			if got := acks.Load() > 0; got != tc.wantPubAk {
				t.Errorf("%d PubAcks, want some: %v", acks.Load(), tc.wantPubAk)
			}
		})
	}
}

// TestSubmitRecoversACommandTheStreamMissed: a command sent while no stream
// took its subject is published again with a PubAck past ConfirmAfter, and
// booked once the stream takes it.
func TestSubmitRecoversACommandTheStreamMissed(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 300 * time.Millisecond
	b.cfg.SubjectPrefix = "missed"
	q := b.gateway()
	ch, err := q.Submit(t.Context(), 42, shared.BookingMsgID(7, "k"), booking(1, 7, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Flush(); err != nil { // the command has reached the server, which had no stream for it
		t.Fatal(err)
	}
	b.takeSubjects(b.cfg.Namespace.Subject("missed") + ".>")
	seen := b.decideAll()
	if d, ok := decision(t, ch); !ok || d.Code != shared.Booked {
		t.Fatalf("decision %+v (ok %v), want the booking of the republished command", d, ok)
	}
	if n := len(seen); n != 1 {
		t.Errorf("the booker saw %d commands, want 1", n)
	}
}

// TestSubmitWithoutAStreamClosesWithoutADecision: with ConfirmAfter, a
// command no stream takes is found out by its PubAck publish, and the
// channel closes without a decision (the client is answered 503) instead
// of waiting for MaxWait.
func TestSubmitWithoutAStreamClosesWithoutADecision(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 100 * time.Millisecond
	b.cfg.PublishTimeout = 500 * time.Millisecond
	b.cfg.SubjectPrefix = "nobody-listens"
	q := b.gateway()
	ch, err := q.Submit(t.Context(), 42, "m", booking(1, 7, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := decision(t, ch); ok {
		t.Fatalf("decision %+v; want the channel closed without one", d)
	}
}

// TestSubmitAsksNoPubAckOfACommandBehindALine: while the booker takes
// 400 ms over every decision, a decision later than ConfirmAfter is the line
// ahead of it, not a lost command. The first command, before the gateway has
// seen any decision, is confirmed with a PubAck; the ones after it are not.
func TestSubmitAsksNoPubAckOfACommandBehindALine(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 100 * time.Millisecond
	b.decideAfter = 400 * time.Millisecond
	acks := b.pubAcks()
	q := b.gateway()
	b.decideAll()
	for i, key := range []string{"a", "b", "c", "d"} {
		ch, err := q.Submit(t.Context(), 42, shared.BookingMsgID(7, key), booking(1, 7, key))
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := decision(t, ch); !ok || d.Code != shared.Booked {
			t.Fatalf("command %s: decision %+v (ok %v), want the booking", key, d, ok)
		}
		if i == 0 && acks.Load() != 1 {
			t.Fatalf("%d PubAcks for the first late command, want 1", acks.Load())
		}
	}
	if n := acks.Load(); n != 1 {
		t.Errorf("%d PubAcks for four commands 400 ms behind, want only the first's", n)
	}
}

// TestSubmitRepublishesAtOnceWhenTheStreamAnswersAgain: commands sent while
// the stream does not answer (here: no stream takes their subjects, as
// while its leader is cut off) wait for it on timers of up to two seconds,
// each at its own phase. The first PubAck after the silence wakes them all,
// so their decisions come together, not spread over the timers' periods.
func TestSubmitRepublishesAtOnceWhenTheStreamAnswersAgain(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 100 * time.Millisecond
	b.cfg.PublishTimeout = 200 * time.Millisecond
	b.cfg.SubjectPrefix = "silent"
	q := b.gateway()
	var chans []<-chan shared.Decision
	for i := range 10 {
		key := fmt.Sprintf("k%d", i)
		ch, err := q.Submit(t.Context(), 42, shared.BookingMsgID(7, key), booking(1, 7, key))
		if err != nil {
			t.Fatal(err)
		}
		chans = append(chans, ch)
		time.Sleep(150 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // every command's pause has grown to its longest
	b.takeSubjects(b.cfg.Namespace.Subject("silent") + ".>")
	b.decideAll()
	came := make([]time.Time, len(chans))
	var wg sync.WaitGroup
	for i, ch := range chans {
		wg.Go(func() {
			select {
			case d, ok := <-ch:
				if !ok || d.Code != shared.Booked {
					t.Errorf("command %d: decision %+v (ok %v), want the booking", i, d, ok)
				}
			case <-time.After(15 * time.Second):
				t.Errorf("command %d: no decision within 15 s", i)
			}
			came[i] = time.Now()
		})
	}
	wg.Wait()
	first, last := slices.MinFunc(came, time.Time.Compare), slices.MaxFunc(came, time.Time.Compare)
	if spread := last.Sub(first); spread > 700*time.Millisecond {
		t.Errorf("the decisions came over %v after the stream answered again, want them together (within 700 ms)", spread)
	}
}
