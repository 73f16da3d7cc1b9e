package gateway

import (
	"context"
	"time"

	"termin/shared"
)

// OpeningSource tells which openings come soon and which slots open at each.
type OpeningSource interface {
	// Openings lists the distinct opening instants in (from, to].
	Openings(ctx context.Context, from, to time.Time) ([]time.Time, error)
	// SlotsOpening lists the slots that open at the instant with an id above
	// after: a schedule may add slots to an opening already warmed.
	SlotsOpening(ctx context.Context, at time.Time, after int64) ([]Slot, error)
}

// Schedules applies doctors' working plans. The gateway never writes slot
// rows itself: it validates a plan and hands it to a booker, which writes the
// slots in the same transaction as it decides bookings on them.
type Schedules interface {
	// PutSchedule applies plan to the doctor and returns what it did. A plan
	// the booker refuses is an INVALID_REQUEST error; no booker answering in
	// time is ErrUnavailable (the plan may still be applied: putting it
	// again is harmless).
	PutSchedule(ctx context.Context, doctorID int64, plan shared.SchedulePlan) (shared.ScheduleResult, error)
}

// Waitlist keeps patients' places in the lines of doctors' days. Like
// Schedules it writes nothing itself: a booker carries out each request, so
// every write to the booking tables stays in the booker.
type Waitlist interface {
	// Waitlist carries out one request (join, list or leave) and returns the
	// booker's answer; a refusal is the shared.Error of its code, no booker
	// answering in time is ErrUnavailable.
	Waitlist(ctx context.Context, req shared.WaitlistRequest) (shared.WaitlistResult, error)
}
