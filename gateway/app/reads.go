package app

import (
	"context"
	"errors"
	"fmt"

	"termin/booker"
	"termin/booker/postgres"
	"termin/gateway"
)

// dbReads is the gateway's view of the database: the store's reads, tried
// again on a dropped connection and answered with gateway.ErrUnavailable when
// the database stays unreachable, so that a client gets its answer or a 503
// with Retry-After during a restart or failover of PostgreSQL, not a 500.
type dbReads struct{ store *postgres.Store }

// readAttempts bounds the tries of one read. After a restart every pooled
// connection is dead and fails once; a fresh one then answers.
const readAttempts = 3

// Slot implements gateway.SlotSource.
func (r dbReads) Slot(ctx context.Context, id int64) (booker.Slot, error) {
	return read(ctx, func(ctx context.Context) (booker.Slot, error) { return r.store.Slot(ctx, id) })
}

// ListSlots implements gateway.Reads.
func (r dbReads) ListSlots(ctx context.Context, doctorID int64, day booker.Date) ([]booker.Slot, error) {
	return read(ctx, func(ctx context.Context) ([]booker.Slot, error) { return r.store.ListSlots(ctx, doctorID, day) })
}

// Appointment implements gateway.Reads.
func (r dbReads) Appointment(ctx context.Context, id int64) (booker.Appointment, error) {
	return read(ctx, func(ctx context.Context) (booker.Appointment, error) { return r.store.Appointment(ctx, id) })
}

// PatientAppointments implements gateway.Reads.
func (r dbReads) PatientAppointments(ctx context.Context, patientID int64, limit int) ([]booker.Appointment, error) {
	return read(ctx, func(ctx context.Context) ([]booker.Appointment, error) {
		return r.store.PatientAppointments(ctx, patientID, limit)
	})
}

// Doctors implements gateway.Reads.
func (r dbReads) Doctors(ctx context.Context, limit int) ([]booker.Doctor, error) {
	return read(ctx, func(ctx context.Context) ([]booker.Doctor, error) { return r.store.Doctors(ctx, limit) })
}

// Doctor implements gateway.Reads.
func (r dbReads) Doctor(ctx context.Context, id int64) (booker.Doctor, bool, error) {
	d, err := read(ctx, func(ctx context.Context) (booker.Doctor, error) { return r.store.Doctor(ctx, id) })
	if errors.Is(err, postgres.ErrDoctorNotFound) {
		return booker.Doctor{}, false, nil
	}
	return d, err == nil, err
}

func read[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	var v T
	var err error
	for range readAttempts {
		if v, err = fn(ctx); err == nil || !postgres.Unavailable(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil && postgres.Unavailable(err) {
		return v, fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	return v, err
}
