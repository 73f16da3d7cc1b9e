package jetstream_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"termin/gateway/jetstream"
	"termin/shared"
)

// TestSubmitPacksBookingsSentTogether: of bookings of one partition's
// doctors submitted together, the first, with nothing in flight, travels
// alone on its doctor's subject at once; the others wait for it to be
// decided and then travel as one message of the stream, an envelope on the
// partition's subject, long before PackWait; each gets its own decision. A
// booking submitted alone later travels alone and waits for nothing.
func TestSubmitPacksBookingsSentTogether(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 5 * time.Second
	b.cfg.PackWait = time.Minute // longer than decision waits for: only a landing sends the pack
	b.decideAfter = 200 * time.Millisecond
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
	prefix := b.cfg.Namespace.Subject(b.cfg.SubjectPrefix)
	if first := <-b.subjects; first == shared.EnvelopeSubject(prefix, shared.Partition(42)) {
		t.Errorf("the first booking went in an envelope, want it alone at once")
	}
	if got := <-b.subjects; got != shared.EnvelopeSubject(prefix, shared.Partition(42)) || len(b.subjects) != 0 {
		t.Errorf("the stream held %s and %d more messages; want the other %d bookings in one envelope", got, len(b.subjects), n-1)
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
	if got, want := <-b.subjects, shared.Subject(prefix, 77); got != want {
		t.Errorf("a booking alone went on %s, want its doctor's subject %s", got, want)
	}
}

// TestSubmitPacksEachPartitionApart: bookings submitted together for the
// doctors of every partition travel, after each partition's first, in one
// envelope per partition, each on its partition's subject, so that each
// goes to the booker holding it.
func TestSubmitPacksEachPartitionApart(t *testing.T) {
	b := newBus(t)
	b.cfg.ConfirmAfter = 5 * time.Second
	b.cfg.PackWait = time.Minute
	b.decideAfter = 100 * time.Millisecond
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
	for range 2 * shared.Partitions {
		got := <-b.subjects
		if strings.HasSuffix(got, ".envelope") && !want[got] {
			t.Errorf("the stream held a second envelope on %s, want one per partition", got)
		}
		delete(want, got)
	}
	if len(want) != 0 || len(b.subjects) != 0 {
		t.Errorf("envelopes missing on %v, %d messages more than a lone booking and an envelope per partition", want, len(b.subjects))
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
	if got := acks.Load(); got != 2 {
		t.Errorf("%d PubAcks, want 2: the lone first booking's, and the envelope's first late command's for all of its", got)
	}
}

// TestSubmitReadsNoRecordOfItsOwnLateEnvelope: an envelope whose decisions
// are late is confirmed with a PubAck, and the stream finds it a duplicate.
// Its Msg-Id is this gateway's own, so the decisions come here as replies:
// no command's record is read while the booker is merely behind.
func TestSubmitReadsNoRecordOfItsOwnLateEnvelope(t *testing.T) {
	b := newBus(t)
	b.keepRows()
	b.cfg.ConfirmAfter = 250 * time.Millisecond
	b.cfg.PackWait = 50 * time.Millisecond
	// The lone first booking is decided within ConfirmAfter; the envelope
	// of the other five is sent at PackWait and half a second behind.
	b.decideAfter = 100 * time.Millisecond
	acks := b.pubAcks()
	q := b.gateway()
	b.decideAll()
	const n = 6
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
