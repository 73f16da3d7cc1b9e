package gateway

import (
	"context"

	"termin/shared"
)

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
