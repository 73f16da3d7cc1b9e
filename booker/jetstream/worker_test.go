package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"termin/booker/internal/testkit"
	"termin/booker/jetstream"
	"termin/shared"
)

// TestDisposeAcksDecisionsTerminatesMalformedAndNaksTheRest is the one
// table from an attempt's result to what happens to its message.
func TestDisposeAcksDecisionsTerminatesMalformedAndNaksTheRest(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"decided (a refusal too is a decision)", nil, "ack"},
		{"malformed", jetstream.ErrMalformed, "term"},
		{"malformed, wrapped", fmt.Errorf("%w: version 9", jetstream.ErrMalformed), "term"},
		{"malformed among others", errors.Join(errDatabaseDown, jetstream.ErrMalformed), "term"},
		{"database down", errDatabaseDown, "nak"},
		{"timed out", context.DeadlineExceeded, "nak"},
	}
	for _, tc := range tests {
		if got := jetstream.Dispose(tc.err); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestBackoffGrowsToThirtySeconds(t *testing.T) {
	want := map[uint64]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second,
		6: 16 * time.Second, 7: 30 * time.Second, 1000: 30 * time.Second}
	for delivered, w := range want {
		if got := jetstream.Backoff(delivered); got != w {
			t.Errorf("after %d deliveries: %v, want %v", delivered, got, w)
		}
	}
}

// TestPoolDecidesEachSlotInStreamOrder: commands of three slots of one
// doctor, interleaved, are each decided once, a slot's in the order the
// stream holds them; each gets its reply, its decision on record and its ack.
func TestPoolDecidesEachSlotInStreamOrder(t *testing.T) {
	svc := &fakeDecider{}
	q := newQueue(t, svc)
	for p := int64(1); p <= 60; p++ {
		q.book(42, 1+p%3, p, fmt.Sprint("k", p))
	}
	q.run()
	for range 60 {
		if d := q.reply(); d.Code != shared.Booked || d.Replay {
			t.Fatalf("reply %+v, want a new booking", d)
		}
	}
	q.settled()
	svc.wantInOrder(t, 20, "stream")
	keys := make([]string, 0, 60)
	for p := int64(1); p <= 60; p++ {
		keys = append(keys, shared.DecisionKey(p, fmt.Sprint("k", p)))
	}
	found, err := q.worker.RecordedMany(t.Context(), keys)
	if err != nil || len(found) != 60 {
		t.Fatalf("%d of 60 decisions on record (err %v)", len(found), err)
	}
}

// TestPoolTerminatesMalformedCommands: a message no retry can decide is
// terminated at once and counted, never handed to the database, and does not
// hold back the valid command behind it.
func TestPoolTerminatesMalformedCommands(t *testing.T) {
	svc := &fakeDecider{}
	q := newQueue(t, svc)
	q.publish(42, "junk-1", []byte("not a command"))
	q.publish(42, "junk-2", mustJSON(t, shared.Command{V: shared.VersionHolds + 1, Kind: shared.KindBook, SlotID: 1, PatientID: 7, IdempotencyKey: "k"}))
	q.publish(42, "junk-3", mustJSON(t, shared.Command{V: shared.Version, Kind: shared.KindBook, PatientID: 7, IdempotencyKey: "k"}))
	q.book(42, 1, 8, "valid")
	q.run()
	if d := q.reply(); d.Code != shared.Booked || d.Appointment == nil || d.Appointment.PatientID != 8 {
		t.Fatalf("reply %+v, want patient 8's booking", d)
	}
	q.settled()
	if n := testutil.ToFloat64(q.metrics.Terminated.WithLabelValues("malformed")); n != 3 {
		t.Errorf("%v messages terminated as malformed, want 3", n)
	}
	if n := svc.decided(); n != 1 {
		t.Errorf("the database saw %d commands, want only the valid one", n)
	}
}

// TestPoolDeliversAgainAfterAFailure: a batch the database fails is not
// acknowledged but delivered again after a delay, and then decided; the
// client's reply comes once, with the decision.
func TestPoolDeliversAgainAfterAFailure(t *testing.T) {
	svc := &fakeDecider{failFirst: 1} // the worker has no retries of its own here
	q := newQueue(t, svc)
	q.book(42, 1, 7, "k")
	q.run()
	if d := q.reply(); d.Code != shared.Booked {
		t.Fatalf("reply %+v, want the booking", d)
	}
	q.settled()
	if n := testutil.ToFloat64(q.metrics.Redelivered); n < 1 {
		t.Errorf("%v redeliveries, want at least 1", n)
	}
	if got := svc.seen(1); len(got) != 1 {
		t.Errorf("decided %v, want patient 7 once", got)
	}
}

// TestPoolAnswersRepeatsFromTheRecord: a key decided before is answered
// from the decisions bucket, without the database, as a replay; the same key
// with another slot is refused as reused.
func TestPoolAnswersRepeatsFromTheRecord(t *testing.T) {
	svc := &fakeDecider{}
	q := newQueue(t, svc)
	q.run()
	q.book(42, 1, 7, "k")
	first := q.reply()
	if first.Code != shared.Booked || first.Replay {
		t.Fatalf("first reply %+v, want a new booking", first)
	}
	q.settled()
	// Past the stream's duplicate window only the record knows the key: a
	// new message id lets the repeat through to the worker.
	q.publish(42, "repeat", mustJSON(t, shared.Command{V: shared.Version, Kind: shared.KindBook, SlotID: 1, PatientID: 7, IdempotencyKey: "k"}))
	if d := q.reply(); d.Code != shared.Booked || !d.Replay || d.Appointment.ID != first.Appointment.ID {
		t.Fatalf("repeat got %+v, want a replay of appointment %d", d, first.Appointment.ID)
	}
	q.publish(42, "reused", mustJSON(t, shared.Command{V: shared.Version, Kind: shared.KindBook, SlotID: 2, PatientID: 7, IdempotencyKey: "k"}))
	if d := q.reply(); d.Code != shared.CodeIdempotencyKeyReused {
		t.Fatalf("the key with another slot got %+v, want IDEMPOTENCY_KEY_REUSED", d)
	}
	q.settled()
	if n := svc.decided(); n != 1 {
		t.Errorf("the database saw %d commands, want 1: repeats are answered from the record", n)
	}
	if n := testutil.ToFloat64(q.metrics.Outcomes.WithLabelValues(string(shared.Booked))); n != 1 {
		t.Errorf("%v bookings counted, want 1", n)
	}
}

// TestRecordNamesTheCommandDecided: a decision, replied and on record,
// carries the reply token of the command it decided, by which a gateway
// that finds its own command a duplicate on the stream tells its own
// decision from another gateway's (a replay).
func TestRecordNamesTheCommandDecided(t *testing.T) {
	q := newQueue(t, &fakeDecider{})
	// A hold: a plain booking's record is its appointment row (below).
	q.publish(42, shared.BookingMsgID(7, "k"), mustJSON(t, shared.Command{V: shared.VersionHolds, Kind: shared.KindBook,
		SlotID: 1, PatientID: 7, IdempotencyKey: "k", RequestID: "token-1", Hold: true}))
	q.run()
	if d := q.reply(); d.RequestID != "token-1" {
		t.Errorf("reply %+v, want it to name the command's token", d)
	}
	q.settled()
	key := shared.DecisionKey(7, "k")
	found, err := q.worker.RecordedMany(t.Context(), []string{key})
	if d := found[key]; err != nil || d.Code != shared.Booked || d.RequestID != "token-1" {
		t.Errorf("on record %+v (err %v), want the booking naming token-1", d, err)
	}
}

// TestNewBookingIsAnsweredBeforeItsRecord: a booking's appointment row is its
// record, so its patient is answered without waiting for the decisions
// bucket; here the bucket takes nothing (its stream is sealed), and the
// booking is answered all the same, while its message stays unacknowledged
// to be decided again (as a replay) once records can be written.
func TestNewBookingIsAnsweredBeforeItsRecord(t *testing.T) {
	q := newQueue(t, &fakeDecider{})
	stream, err := q.js.Stream(t.Context(), "KV_"+q.kv.Bucket())
	if err != nil {
		t.Fatal(err)
	}
	cfg := stream.CachedInfo().Config
	cfg.Sealed = true
	if _, err := q.js.UpdateStream(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	q.run()
	q.book(42, 1, 7, "k")
	if d := q.reply(); d.Code != shared.Booked || d.Replay || d.Appointment == nil {
		t.Fatalf("reply %+v, want the new booking", d)
	}
	if err := testkit.Settled(q.parts.Consumers...); err == nil {
		t.Error("the command was acknowledged without its decision on record")
	}
}

// TestPlainBookingIsRecordedByItsRowAlone: a plain one-slot booking goes to
// the database with its command's reply token, which its appointment row
// keeps, and gets no record in the decisions bucket: it is answered and
// acknowledged without one. A hold, and a command without a token, are
// recorded as before.
func TestPlainBookingIsRecordedByItsRowAlone(t *testing.T) {
	svc := &fakeDecider{}
	q := newQueue(t, svc)
	cmds := []shared.Command{
		{V: shared.Version, Kind: shared.KindBook, SlotID: 1, PatientID: 7, IdempotencyKey: "plain", RequestID: "t-plain"},
		{V: shared.VersionHolds, Kind: shared.KindBook, SlotID: 2, PatientID: 7, IdempotencyKey: "hold", RequestID: "t-hold", Hold: true},
		{V: shared.Version, Kind: shared.KindBook, SlotID: 3, PatientID: 7, IdempotencyKey: "untokened"},
	}
	for _, c := range cmds {
		q.publish(42, shared.BookingMsgID(c.PatientID, c.IdempotencyKey), mustJSON(t, c))
	}
	q.run()
	for range cmds {
		if d := q.reply(); d.Code != shared.Booked || d.Replay {
			t.Errorf("reply %+v, want a new booking", d)
		}
	}
	q.settled()
	if got := svc.tokens(); got["plain"] != "t-plain" || got["hold"] != "" || got["untokened"] != "" {
		t.Errorf("reply tokens sent to the database %v; want t-plain for the plain booking alone", got)
	}
	keys := []string{shared.DecisionKey(7, "plain"), shared.DecisionKey(7, "hold"), shared.DecisionKey(7, "untokened")}
	found, err := q.worker.RecordedMany(t.Context(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := found[keys[0]]; ok {
		t.Error("the plain booking is in the decisions bucket; its row is its record")
	}
	for _, k := range keys[1:] {
		if d, ok := found[k]; !ok || d.Code != shared.Booked {
			t.Errorf("on record for %s: %+v (found %v); want the booking", k, d, ok)
		}
	}
}
