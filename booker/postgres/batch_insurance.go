package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

// insuranceSQL reads the insurance the profiles of the batch's patients
// ($1) name.
const insuranceSQL = `
        SELECT patient_id, insurance FROM patient_contact WHERE patient_id = ANY($1) AND insurance IS NOT NULL`

// readInsurance reads the batch's patients' insurance when one of its slots
// is reserved for an insurance: a round trip that batches of slots open to
// everyone, the opening's among them, never make.
func (b *batch) readInsurance(ctx context.Context) error {
	restricted := false
	for _, sl := range b.slots {
		restricted = restricted || sl.insurance != ""
	}
	if !restricted {
		return nil
	}
	var patients []int64
	for _, op := range b.ops {
		switch {
		case op.Book != nil:
			patients = append(patients, op.Book.PatientID)
		case op.Reschedule != nil:
			patients = append(patients, op.Reschedule.PatientID)
		}
	}
	rows, err := b.tx.Query(ctx, insuranceSQL, patients)
	if err != nil {
		return fmt.Errorf("postgres: patients' insurance: %w", err)
	}
	b.insured = make(map[int64]string)
	var p int64
	var ins string
	if _, err := pgx.ForEachRow(rows, []any{&p, &ins}, func() error { b.insured[p] = ins; return nil }); err != nil {
		return fmt.Errorf("postgres: patients' insurance: %w", err)
	}
	return nil
}

// uninsured refuses a booking of a slot reserved for an insurance the
// patient's profile does not name (a patient without one included).
func (b *batch) uninsured(sl *slotRow, patient int64) error {
	if sl == nil || sl.insurance == "" || b.insured[patient] == sl.insurance {
		return nil
	}
	return booker.ErrInsuranceMismatch
}
