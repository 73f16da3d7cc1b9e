package system

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"termin/gateway/token"
	"termin/system/devidp"
)

// DevPatient is the patient the development token of `make run` acts for:
// the one the README's requests book for.
const DevPatient = 77

// devTokenLifetime keeps development tokens within the gateway's default
// maximum lifetime (24 h).
const devTokenLifetime = 12 * time.Hour

// DevPractice is the practice the development staff token of `make run`
// is scoped to: the demo doctors' (every doctor is in practice 1 unless
// said otherwise).
const DevPractice = 1

// DevAuth is what `make run` hands a developer: the secret the gateway
// checks tokens with, and a ready patient, staff and admin token.
type DevAuth struct {
	Secret       []byte
	PatientToken string
	StaffToken   string
	AdminToken   string
}

// NewDevAuth signs a patient token for DevPatient and an admin token with
// secret, or with a random 32-byte secret made now when secret is empty.
func NewDevAuth(secret []byte) (DevAuth, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return DevAuth{}, err
		}
	}
	d := DevAuth{Secret: secret}
	var err error
	if d.PatientToken, err = token.Sign(secret, strconv.Itoa(DevPatient), "patient", devTokenLifetime); err != nil {
		return DevAuth{}, err
	}
	if d.StaffToken, err = token.SignClaims(secret, jwt.MapClaims{"sub": "dev-desk", "role": "staff", "practiceId": DevPractice}, devTokenLifetime); err != nil {
		return DevAuth{}, err
	}
	d.AdminToken, err = token.Sign(secret, "dev-admin", "admin", devTokenLifetime)
	return d, err
}

// WriteTokens puts the tokens in dir/patient.token and dir/admin.token,
// readable by the developer only, so that the README's requests and the load
// test can use them as written.
func (d DevAuth) WriteTokens(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, tok := range map[string]string{"patient.token": d.PatientToken, "staff.token": d.StaffToken, "admin.token": d.AdminToken} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tok+"\n"), 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}

// LinkDemoPatient makes the demo patient of the development provider at
// issuer patient DevPatient, the patient of the README's requests, so that
// signing in on the page as that person shows the same appointments. The
// issuer's address changes with each run; an older run's link of the demo
// patient goes.
func LinkDemoPatient(ctx context.Context, databaseURL, issuer string) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("link the demo patient: %w", err)
	}
	defer conn.Close(ctx)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM patient_identity WHERE patient_id = $3 OR (issuer = $1 AND subject = $2)`,
			issuer, devidp.DemoPatientSubject, DevPatient); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO patient_identity (issuer, subject, patient_id) VALUES ($1, $2, $3)`,
			issuer, devidp.DemoPatientSubject, DevPatient)
		return err
	})
	if err != nil {
		return fmt.Errorf("link the demo patient: %w", err)
	}
	return nil
}
