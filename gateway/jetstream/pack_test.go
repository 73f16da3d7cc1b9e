package jetstream_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"termin/gateway/jetstream"
	"termin/shared"
)

// TestSubmitPacksBookingsSentTogether: bookings of one partition's doctors
// submitted within PackWait travel as one message of the stream, an
// envelope on the partition's subject, and each gets its own decision; a
// booking submitted alone travels alone, on its doctor's subject.
func TestSubmitPacksBookingsSentTogether(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 2 * time.Second
	b.cfg.PackWait = 100 * time.Millisecond
	seen := b.decideAll()
	const n = 10
	q := b.gateway()
	doctors := doctorsOf(shared.Partition(42), n)
	chs := submitTogether(t, q, n, func(p int64) (int64, shared.Command) { return doctors[p], booking(100+p, p, fmt.Sprint("k", p)) })
	for p, ch := range chs {
		if d, ok := decision(t, ch); !ok || d.Code != shared.Booked || d.Appointment.PatientID != int64(p) {
			t.Errorf("patient %d: decision %+v (ok %v), want their booking", p, d, ok)
		}
	}
	envelope := shared.EnvelopeSubject(b.cfg.Namespace.Subject(b.cfg.SubjectPrefix), shared.Partition(42))
	if got := <-b.subjects; got != envelope || len(b.subjects) != 0 {
		t.Errorf("the stream held %s and %d more messages; want the %d bookings in one envelope", got, len(b.subjects), n)
	}
	if len(seen) != n {
		t.Errorf("the booker saw %d commands, want %d", len(seen), n)
	}
	ch, err := q.Submit(t.Context(), 77, shared.BookingMsgID(1, "alone"), booking(5, 1, "alone"))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := decision(t, ch); !ok || d.Code != shared.Booked {
		t.Fatalf("decision %+v (ok %v), want the booking", d, ok)
	}
	if got, want := <-b.subjects, shared.Subject(b.cfg.Namespace.Subject(b.cfg.SubjectPrefix), 77); got != want {
		t.Errorf("a booking alone went on %s, want its doctor's subject %s", got, want)
	}
}

// TestSubmitPacksEachPartitionApart: bookings submitted together for the
// doctors of every partition travel in one envelope per partition, each on
// its partition's subject, so that each goes to the booker holding it.
func TestSubmitPacksEachPartitionApart(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 2 * time.Second
	b.cfg.PackWait = 200 * time.Millisecond
	b.decideAll()
	const perPartition = 3
	var doctors []int64
	for part := range shared.Partitions {
		doctors = append(doctors, doctorsOf(part, perPartition)...)
	}
	q := b.gateway()
	chs := submitTogether(t, q, len(doctors), func(p int64) (int64, shared.Command) {
		return doctors[p], booking(100+p, p, fmt.Sprint("k", p))
	})
	for p, ch := range chs {
		if d, ok := decision(t, ch); !ok || d.Code != shared.Booked {
			t.Errorf("patient %d: decision %+v (ok %v), want their booking", p, d, ok)
		}
	}
	want := map[string]bool{}
	for part := range shared.Partitions {
		want[shared.EnvelopeSubject(b.cfg.Namespace.Subject(b.cfg.SubjectPrefix), part)] = true
	}
	for range shared.Partitions {
		got := <-b.subjects
		if !want[got] {
			t.Errorf("the stream held a message on %s, want one envelope per partition", got)
		}
		delete(want, got)
	}
	if len(b.subjects) != 0 {
		t.Errorf("the stream held %d more messages than one envelope per partition", len(b.subjects))
	}
}

// doctorsOf is n doctors of partition part.
func doctorsOf(part, n int) []int64 {
	var out []int64
	for d := int64(1); len(out) < n; d++ {
		if shared.Partition(d) == part {
			out = append(out, d)
		}
	}
	return out
}

// TestSubmitNeverPacksMoreThanAnEnvelopeHolds: bookings submitted at once
// by many more goroutines than an envelope holds fill envelopes to their
// bound and no further (the booker parks a larger one whole), and each is
// decided.
func TestSubmitNeverPacksMoreThanAnEnvelopeHolds(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 5 * time.Second
	b.cfg.PackWait = time.Second
	seen := b.decideAll()
	const n, rounds = 4 * shared.MaxEnvelopeCommands, 3
	q := b.gateway()
	for r := range rounds { // a race shows in some rounds only
		chs := submitTogether(t, q, n, func(p int64) (int64, shared.Command) {
			return 42, booking(1+p, p, fmt.Sprint("k", r, "-", p))
		})
		for p, ch := range chs {
			if d, ok := decision(t, ch); !ok || d.Code != shared.Booked {
				t.Fatalf("round %d, patient %d: decision %+v (ok %v), want the booking: its envelope broke its bounds", r, p, d, ok)
			}
		}
	}
	if len(seen) != n*rounds {
		t.Errorf("the booker saw %d commands, want %d", len(seen), n*rounds)
	}
}

// TestSubmitRecoversAnEnvelopeTheStreamMissed: an envelope sent while no
// stream took its subject is published again whole, with a PubAck, once for
// all of its late commands; the stream then keeps it, and each command is
// booked once.
func TestSubmitRecoversAnEnvelopeTheStreamMissed(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 300 * time.Millisecond
	b.cfg.PackWait = 100 * time.Millisecond
	b.cfg.SubjectPrefix = "missed"
	acks := b.pubAcks()
	q := b.gateway()
	const n = 3
	chs := submitTogether(t, q, n, func(p int64) (int64, shared.Command) { return 42, booking(1+p, p, fmt.Sprint("k", p)) })
	if err := q.Flush(); err != nil { // the envelope has reached the server, which had no stream for it
		t.Fatal(err)
	}
	b.takeSubjects(b.cfg.Namespace.Subject("missed") + ".>")
	seen := b.decideAll()
	for p, ch := range chs {
		if d, ok := decision(t, ch); !ok || d.Code != shared.Booked {
			t.Errorf("patient %d: decision %+v (ok %v), want the booking of the republished envelope", p, d, ok)
		}
	}
	if got := len(seen); got != n {
		t.Errorf("the booker saw %d commands, want %d: the envelope once", got, n)
	}
	if got := acks.Load(); got != 1 {
		t.Errorf("%d PubAcks, want 1: the envelope's first late command confirms it for all", got)
	}
}

// TestSubmitReadsNoRecordOfItsOwnLateEnvelope: an envelope whose decisions
// are late is confirmed with a PubAck, and the stream finds it a duplicate.
// Its Msg-Id is this gateway's own, so the decisions come here as replies:
// no command's record is read while the booker is merely behind.
func TestSubmitReadsNoRecordOfItsOwnLateEnvelope(t *testing.T) {
	b := newBus(t)
	b.keepRows()
	b.cfg.ConfirmAfter = 100 * time.Millisecond
	b.cfg.PackWait = 50 * time.Millisecond
	b.decideAfter = 100 * time.Millisecond // five commands: half a second behind
	acks := b.pubAcks()
	q := b.gateway()
	b.decideAll()
	const n = 5
	chs := submitTogether(t, q, n, func(p int64) (int64, shared.Command) { return 42, booking(1+p, p, fmt.Sprint("k", p)) })
	wantOwnBookings(t, chs)
	if got := acks.Load(); got != 1 {
		t.Fatalf("%d PubAcks, want 1: the late envelope confirmed once", got)
	}
	if got := b.rows.reads.Load(); got != 0 {
		t.Errorf("%d reads of the commands' records, want none: their replies were on their way", got)
	}
}

// TestSubmitReadsTheRecordsOfAnOwnEnvelopeWhoseRepliesWereLost: when the
// replies to an own envelope never come, its commands' records are read
// once their replies have had time to come, and each gets its decision.
func TestSubmitReadsTheRecordsOfAnOwnEnvelopeWhoseRepliesWereLost(t *testing.T) {
	b := newBus(t)
	b.keepRows()
	b.dropReplies = true
	b.cfg.ConfirmAfter = 100 * time.Millisecond
	b.cfg.PackWait = 50 * time.Millisecond
	q := b.gateway()
	b.decideAll()
	const n = 3
	chs := submitTogether(t, q, n, func(p int64) (int64, shared.Command) { return 42, booking(1+p, p, fmt.Sprint("k", p)) })
	wantOwnBookings(t, chs)
	if got := b.rows.reads.Load(); got < n {
		t.Errorf("%d reads of the records, want at least %d", got, n)
	}
}

// wantOwnBookings checks that each channel, by patient, yields that
// patient's own booking, not a replay.
func wantOwnBookings(t *testing.T, chs []<-chan shared.Decision) {
	t.Helper()
	for p, ch := range chs {
		if d, ok := decision(t, ch); !ok || d.Code != shared.Booked || d.Replay {
			t.Fatalf("patient %d: decision %+v (ok %v), want their own booking", p, d, ok)
		}
	}
}

// submitTogether submits n commands from n goroutines released at once and
// returns their decisions' channels, by patient.
func submitTogether(t *testing.T, q *jetstream.Queue, n int, of func(patient int64) (doctor int64, cmd shared.Command)) []<-chan shared.Decision {
	t.Helper()
	chs := make([]<-chan shared.Decision, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for p := range n {
		wg.Go(func() {
			<-start
			doctor, cmd := of(int64(p))
			chs[p], errs[p] = q.Submit(t.Context(), doctor, shared.BookingMsgID(cmd.PatientID, cmd.IdempotencyKey), cmd)
		})
	}
	close(start)
	wg.Wait()
	for p, err := range errs {
		if err != nil {
			t.Fatalf("patient %d: %v", p, err)
		}
	}
	return chs
}
