package waitlist_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
	"termin/booker/internal/testkit"
	"termin/booker/outbox"
	"termin/booker/waitlist"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/poll"
)

var berlin, _ = time.LoadLocation("Europe/Berlin")

// offers records what the consumer offers, as the hold would take it.
type offers struct {
	mu  sync.Mutex
	got []waitlist.WaitingEntry
}

func (o *offers) offer(_ context.Context, _ pgx.Tx, e waitlist.WaitingEntry) (booker.Booking, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, e)
	return booker.Booking{Appointment: booker.Appointment{ID: 5000 + e.PatientID, SlotID: e.SlotID, PatientID: e.PatientID},
		DoctorID: e.DoctorID}, nil
}

// announced records the slot states the consumer announces.
type announced struct {
	mu     sync.Mutex
	states []shared.SlotState
}

func (a *announced) Booked(b booker.Booking) shared.SlotState {
	return shared.SlotState{SlotID: b.SlotID, DoctorID: b.DoctorID, Left: b.Left, Holders: []int64{b.PatientID}}
}

func (a *announced) Send(_ context.Context, states []shared.SlotState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.states = append(a.states, states...)
}

func (a *announced) list() []shared.SlotState {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]shared.SlotState(nil), a.states...)
}

func (o *offers) list() []waitlist.WaitingEntry {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]waitlist.WaitingEntry(nil), o.got...)
}

func TestCancellationOffersThePlaceToTheFirstInLine(t *testing.T) {
	db, _ := pgtest.Pool(t, 8)
	_, js, ns := testkit.NATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store := storesOn(db, time.Date(2031, 3, 1, 9, 0, 0, 0, time.UTC))
	if _, err := outbox.Setup(ctx, js, ns, 1); err != nil {
		t.Fatal(err)
	}
	cons, err := waitlist.Setup(ctx, js, ns)
	if err != nil {
		t.Fatal(err)
	}
	rec := &offers{}
	relay := &outbox.Relay{DB: db, JS: js, Namespace: ns, Log: log, Idle: 20 * time.Millisecond}
	ann := &announced{}
	o := &waitlist.Offers{Store: store.waitlistStore, Consumer: cons, Offer: rec.offer, Announcer: ann, Log: log}
	var wg sync.WaitGroup
	wg.Go(func() { _ = relay.Run(ctx) })
	wg.Go(func() { _ = o.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })

	start := time.Date(2031, 3, 10, 9, 30, 0, 0, berlin)
	day := shared.Date{Year: 2031, Month: time.March, Day: 10}
	for _, p := range []int64{100, 101} {
		if _, err := store.JoinWaitlist(ctx, p, 42, day); err != nil {
			t.Fatal(err)
		}
	}
	slot := pgtest.InsertSlot(t, db, 42, start, 1)
	b, err := store.Book(ctx, booker.BookRequest{SlotID: slot, PatientID: 77, IdempotencyKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Cancel(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	poll.For(t, 20*time.Second, 20*time.Millisecond, func() error {
		if got := rec.list(); len(got) != 1 {
			return fmt.Errorf("%d offers, want 1", len(got))
		}
		return testkit.Settled(cons)
	})
	if got := rec.list(); got[0].PatientID != 100 || got[0].SlotID != slot {
		t.Errorf("offered %+v, want patient 100 the slot %d", got[0], slot)
	}
	if n := pgtest.QueryInt(t, db, `SELECT count(*) FROM waitlist_entry WHERE patient_id = 101 AND status = 'WAITING'`); n != 1 {
		t.Errorf("the second in line no longer waits")
	}
	if got := ann.list(); len(got) != 1 || got[0].SlotID != slot || got[0].DoctorID != 42 || got[0].Left != 0 {
		t.Errorf("announced %+v, want the offered slot %d taken", got, slot)
	}

	// A move frees its old slot: the next in line is offered that.
	old := pgtest.InsertSlot(t, db, 42, start.Add(time.Hour), 1)
	moved, err := store.Book(ctx, booker.BookRequest{SlotID: old, PatientID: 78, IdempotencyKey: "m"})
	if err != nil {
		t.Fatal(err)
	}
	to := pgtest.InsertSlot(t, db, 42, start.Add(2*time.Hour), 1)
	if _, err := store.Reschedule(ctx, booker.RescheduleRequest{AppointmentID: moved.ID, SlotID: to, PatientID: 78, IdempotencyKey: "r"}); err != nil {
		t.Fatal(err)
	}
	poll.For(t, 20*time.Second, 20*time.Millisecond, func() error {
		if got := rec.list(); len(got) != 2 {
			return fmt.Errorf("%d offers, want 2", len(got))
		}
		return nil
	})
	if got := rec.list()[1]; got.PatientID != 101 || got.SlotID != old {
		t.Errorf("after the move offered %+v, want patient 101 the old slot %d", got, old)
	}
}

// TestOffersConsumerTakesOnlyEventsThatFreePlaces: a booking's event never
// reaches the waitlist's consumer (two messages per booking that could offer
// nothing); a cancellation's, an expiry's and a move's do.
func TestOffersConsumerTakesOnlyEventsThatFreePlaces(t *testing.T) {
	_, js, ns := testkit.NATS(t)
	ctx := t.Context()
	if _, err := outbox.Setup(ctx, js, ns, 1); err != nil {
		t.Fatal(err)
	}
	cons, err := waitlist.Setup(ctx, js, ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{outbox.SubjectBooked, outbox.SubjectConfirmed, outbox.SubjectBooked,
		outbox.SubjectCancelled, outbox.SubjectExpired, outbox.SubjectRescheduled} {
		if _, err := js.Publish(ctx, ns.Subject(subject), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	// The consumer counts a stored event a moment after its PubAck.
	poll.For(t, 5*time.Second, 10*time.Millisecond, func() error {
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		if info.NumPending != 3 {
			return fmt.Errorf("the waitlist's consumer has %d events pending, want the 3 that free places", info.NumPending)
		}
		return nil
	})
	time.Sleep(100 * time.Millisecond) // a booking's event, wrongly taken, would have been counted by now
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumPending != 3 {
		t.Errorf("the waitlist's consumer has %d events pending, want the 3 that free places", info.NumPending)
	}
}
