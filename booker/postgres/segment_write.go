package postgres

import (
	"context"
	"fmt"
	"time"
)

// reserve adds the granted places with one conditional UPDATE; the condition
// (and chk_booked behind it) refuses any grant past capacity, which would
// fail the whole batch rather than overbook.
func (b *batch) reserve(ctx context.Context, slots map[int64]*slotRow) error {
	var ids []int64
	var counts []int32
	for id, sl := range slots {
		if sl.granted > 0 {
			ids, counts = append(ids, id), append(counts, int32(sl.granted))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	tag, err := b.tx.Exec(ctx, `
        UPDATE time_slot t SET booked_count = t.booked_count + g.n
        FROM unnest($1::bigint[], $2::int[]) AS g(id, n)
        WHERE t.id = g.id AND t.booked_count + g.n <= t.capacity`, ids, counts)
	if err != nil {
		return fmt.Errorf("postgres: reserve: %w", translate(err))
	}
	if int(tag.RowsAffected()) != len(ids) {
		return fmt.Errorf("postgres: reserve: %d of %d slots updated", tag.RowsAffected(), len(ids))
	}
	return nil
}

// insertSQL writes the winners' appointments and their outbox events in one statement.
const insertSQL = `
WITH a AS (
    INSERT INTO appointment (slot_id, patient_id, status, idempotency_key, request_fingerprint)
    SELECT w.slot_id, w.patient_id, 'BOOKED', w.idempotency_key, w.fingerprint
    FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[])
         AS w(slot_id, patient_id, idempotency_key, fingerprint)
    RETURNING id, slot_id, patient_id, idempotency_key, created_at
), e AS (
    INSERT INTO outbox_event (aggregate, aggregate_id, type, payload)
    SELECT 'appointment', a.id, 'appointment.booked', jsonb_build_object(
        'appointmentId', a.id, 'slotId', a.slot_id, 'patientId', a.patient_id, 'doctorId', t.doctor_id,
        'startAt', t.start_at, 'endAt', t.end_at, 'createdAt', a.created_at)
    FROM a JOIN time_slot t ON t.id = a.slot_id
)
SELECT id, patient_id, idempotency_key, created_at FROM a`

// insert writes the winners and fills in their appointment ids.
func (b *batch) insert(ctx context.Context, winners []int) error {
	if len(winners) == 0 {
		return nil
	}
	slots, patients := make([]int64, len(winners)), make([]int64, len(winners))
	keys, prints := make([]string, len(winners)), make([]string, len(winners))
	for n, i := range winners {
		req := b.ops[i].Book
		slots[n], patients[n], keys[n], prints[n] = req.SlotID, req.PatientID, req.IdempotencyKey, req.Fingerprint()
	}
	rows, err := b.tx.Query(ctx, insertSQL, slots, patients, keys, prints)
	if err != nil {
		return fmt.Errorf("postgres: insert winners: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k keyID
		var id int64
		var created time.Time
		if err := rows.Scan(&id, &k.patient, &k.key, &created); err != nil {
			return err
		}
		bk := &b.out[b.decided[k]].Booking
		bk.ID, bk.CreatedAt = id, created
	}
	if err := rows.Err(); err != nil {
		return translate(err)
	}
	return nil
}
