package postgres_test

import (
	"context"
	"testing"

	"termin/booker"
	"termin/migrations/pgtest"
	"termin/shared"
)

// TestInsuranceReservedSlots: a slot reserved for one insurance takes only
// patients whose profile names it, in a batch and in the single-statement
// path; the other slots of the batch take anyone.
func TestInsuranceReservedSlots(t *testing.T) {
	store, pool := newStore(t)
	ctx := context.Background()
	private, open := pgtest.InsertSlot(t, pool, 42, future, 10), pgtest.InsertSlot(t, pool, 43, future, 10)
	for _, q := range []string{
		`UPDATE time_slot SET insurance = 'PKV' WHERE doctor_id = 42`,
		`INSERT INTO patient_contact (patient_id, name, insurance) VALUES (7, 'G', 'GKV'), (8, 'P', 'PKV'), (10, 'Q', 'PKV')`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	book := func(patient, slot int64, key string) booker.Op {
		return booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: patient, IdempotencyKey: key}}
	}
	out, err := store.Decide(ctx, []booker.Op{book(7, private, "a"), book(8, private, "b"), book(9, private, "c"), book(7, open, "d")})
	if err != nil {
		t.Fatal(err)
	}
	want := []shared.Code{shared.CodeInsuranceMismatch, "", shared.CodeInsuranceMismatch, ""}
	for i, o := range out {
		if got := shared.Code(""); o.Err != nil {
			got = shared.CodeOf(o.Err)
			if got != want[i] {
				t.Errorf("booking %d: %v, want %q", i, o.Err, want[i])
			}
		} else if want[i] != "" {
			t.Errorf("booking %d booked, want %q", i, want[i])
		}
	}
	move := booker.Op{Reschedule: &booker.RescheduleRequest{AppointmentID: out[3].Booking.ID, SlotID: private, PatientID: 7, IdempotencyKey: "m"}}
	if moved, err := store.Decide(ctx, []booker.Op{move}); err != nil || shared.CodeOf(moved[0].Err) != shared.CodeInsuranceMismatch {
		t.Errorf("moving the GKV patient into the reserved slot: %v %v, want INSURANCE_MISMATCH", err, moved)
	}
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: private, PatientID: 7, IdempotencyKey: "e"}); shared.CodeOf(err) != shared.CodeInsuranceMismatch {
		t.Errorf("single booking of the reserved slot by a GKV patient: %v, want INSURANCE_MISMATCH", err)
	}
	if _, err := store.Book(ctx, booker.BookRequest{SlotID: private, PatientID: 10, IdempotencyKey: "f"}); err != nil {
		t.Errorf("single booking by the PKV patient: %v", err)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT booked_count FROM time_slot WHERE id = $1`, private); n != 2 {
		t.Errorf("the reserved slot's count = %d, want 2", n)
	}
}
