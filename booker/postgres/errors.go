package postgres

import (
	"errors"
	"net"
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

// Unavailable reports whether err says the database could not be reached or
// dropped the connection (a restart, a failover, a cut, too many
// connections, a cancelled statement): a failure to try again later, not a
// wrong request and not a bug. Readers answer it with 503 and Retry-After.
func Unavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 08 connection exception, 53 insufficient resources, 57 operator intervention.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "53") || strings.HasPrefix(pgErr.Code, "57")
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}
