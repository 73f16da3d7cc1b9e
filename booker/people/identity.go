package people

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"termin/shared"
)

// linkSQL finds the patient of an identity ($1 issuer, $2 subject), or
// makes one with a new id. Of two first sign-ins at once, one inserts and
// the other finds nothing in its snapshot; linkTries asks again.
const linkSQL = `
WITH made AS (
    INSERT INTO patient_identity (issuer, subject, patient_id) VALUES ($1, $2, nextval('patient_id_seq'))
    ON CONFLICT (issuer, subject) DO NOTHING
    RETURNING patient_id)
SELECT patient_id, true FROM made
UNION ALL
SELECT patient_id, false FROM patient_identity WHERE issuer = $1 AND subject = $2`

// prefillSQL gives a new patient its first profile: name and e-mail from the
// provider, German, no consent to any channel.
const prefillSQL = `
INSERT INTO patient_contact (patient_id, name, email, language, email_consent, sms_consent, updated_at)
VALUES ($1, $2, NULLIF($3, ''), $4, false, false, $5)
ON CONFLICT (patient_id) DO NOTHING`

// linkTries bounds the rounds of linkSQL: a concurrent first sign-in
// commits between the first and the second.
const linkTries = 3

// Link returns the patient id of a provider's person, making the patient
// (and its prefilled profile) at its first sign-in; created says which. The
// caller has checked id.Valid.
func (s *Store) Link(ctx context.Context, id shared.Identity) (patientID int64, created bool, err error) {
	for range linkTries {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if err := tx.QueryRow(ctx, linkSQL, id.Issuer, id.Subject).Scan(&patientID, &created); err != nil {
				return err
			}
			if !created {
				return nil
			}
			p := id.Prefill(patientID)
			_, err := tx.Exec(ctx, prefillSQL, patientID, p.Name, p.Email, p.Language, s.Now())
			return err
		})
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
	}
	if err != nil {
		return 0, false, fmt.Errorf("people: link identity: %w", err)
	}
	return patientID, created, nil
}
