package postgres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"termin/booker"
)

// PostgreSQL error codes this adapter gives a domain meaning to.
const (
	codeUniqueViolation = "23505"
	codeCheckViolation  = "23514"
	codeForeignKey      = "23503"
	codeExclusion       = "23P01"
)

// errKeyTaken signals that a concurrent request with the same key won the
// insert; the caller answers with that request's result instead.
var errKeyTaken = errors.New("idempotency key taken concurrently")

// errRerunCarefully asks for the batch to be decided again in careful mode.
var errRerunCarefully = errors.New("batch must be decided carefully")

// errDoctorBusy signals that ex_doctor_overlap refused an appointment: the
// doctor has another active appointment at an overlapping time in a slot of
// capacity 1, which only overlapping slot rows of one doctor allow past the
// places count.
var errDoctorBusy = errors.New("the doctor has an overlapping appointment")

// translate maps constraint violations to domain errors by constraint name and
// passes every other error through unchanged.
func translate(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch {
	case pgErr.Code == codeUniqueViolation && pgErr.ConstraintName == "uq_active_patient_slot":
		return booker.ErrAlreadyBooked
	case pgErr.Code == codeUniqueViolation && pgErr.ConstraintName == "uq_patient_idempotency_key":
		return errKeyTaken
	case pgErr.Code == codeCheckViolation && pgErr.ConstraintName == "chk_booked":
		return booker.ErrSlotFull
	case pgErr.Code == codeExclusion && pgErr.ConstraintName == "ex_patient_overlap":
		return booker.ErrOverlapping
	case pgErr.Code == codeExclusion && pgErr.ConstraintName == "ex_doctor_overlap":
		return errDoctorBusy
	case pgErr.Code == codeForeignKey:
		return booker.ErrSlotNotFound
	}
	return err
}

// permanent marks a data error (SQLSTATE class 22, data exception, or 23,
// integrity violation) that translate did not turn into a decision: the same
// command fails the same way on every attempt.
func permanent(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23")) {
		return fmt.Errorf("%w: SQLSTATE %s: %s", booker.ErrPermanent, pgErr.Code, pgErr.Message)
	}
	return err
}
