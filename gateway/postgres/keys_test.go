package postgres_test

import (
	"testing"
	"time"

	"termin/gateway"
	"termin/migrations/pgtest"
)

// TestKeyBookingReadsRowsThatAreTheirRecord: a key's row with a reply
// token (a plain booking, which the booker records nowhere else) is read
// with its token, its slot's end and its status now; a row without one
// (its decision is in the decisions bucket) and a key never used are not.
// A booking a reschedule moved is read with the slot its key booked.
func TestKeyBookingReadsRowsThatAreTheirRecord(t *testing.T) {
	start := time.Now().Add(48 * time.Hour).Truncate(time.Minute).UTC()
	reader, pool := newReader(t, time.Now())
	slot := pgtest.InsertSlot(t, pool, 42, start, 2)
	var id int64
	if err := pool.QueryRow(t.Context(), `
            INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, period, reply_token)
            VALUES ($1, 7, 'CANCELLED', 'row', tstzrange($2::timestamptz, $2::timestamptz + interval '15 minutes'), 'tok-1') RETURNING id`,
		slot, start).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
            VALUES ($1, 8, 'BOOKED', 'bucket')`, slot); err != nil {
		t.Fatal(err)
	}
	kb, ok, err := reader.KeyBooking(t.Context(), 7, "row")
	a := kb.Appointment
	if err != nil || !ok || kb.ReplyToken != "tok-1" || a.ID != id || a.SlotID != slot || kb.BookedSlot != slot || a.PatientID != 7 ||
		a.Status != gateway.StatusCancelled || !a.EndAt.Equal(start.Add(15*time.Minute)) || a.CreatedAt.IsZero() {
		t.Errorf("KeyBooking(7, row) = %+v, %v, %v; want appointment %d, token tok-1, CANCELLED, ending 15 min after %v",
			kb, ok, err, id, start)
	}
	// A booking moved since: the slot it booked, the appointment where it is.
	later := pgtest.InsertSlot(t, pool, 42, start.Add(time.Hour), 1)
	var moved int64
	if err := pool.QueryRow(t.Context(), `
            INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, reply_token)
            VALUES ($1, 9, 'BOOKED', 'moved', 'tok-2') RETURNING id`, later).Scan(&moved); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), `INSERT INTO appointment_reschedule
            (patient_id, idempotency_key, appointment_id, from_slot_id, to_slot_id, request_fingerprint)
            VALUES (9, 'move-1', $1, $2, $3, 'f')`, moved, slot, later); err != nil {
		t.Fatal(err)
	}
	if kb, ok, err := reader.KeyBooking(t.Context(), 9, "moved"); err != nil || !ok || kb.BookedSlot != slot || kb.Appointment.SlotID != later {
		t.Errorf("KeyBooking(9, moved) = %+v, %v, %v; want slot %d booked, the appointment at %d", kb, ok, err, slot, later)
	}
	for _, k := range []struct {
		patient int64
		key     string
	}{{8, "bucket"}, {7, "never"}, {8, "row"}} {
		if kb, ok, err := reader.KeyBooking(t.Context(), k.patient, k.key); ok || err != nil {
			t.Errorf("KeyBooking(%d, %s) = %+v, %v, %v; want nothing", k.patient, k.key, kb, ok, err)
		}
	}
}
