package app

import (
	"context"

	"termin/gateway"
	"termin/shared"
)

// Schedules is the gateway's side of the plan request-reply with the bookers:
// what the PUT route uses, and what seeds plans put as that route would.
func (a *App) Schedules() gateway.Schedules {
	return scheduleClient{a.bookerClient(shared.ScheduleSubject)}
}

// scheduleClient puts a plan through one booker; applying a plan is
// idempotent, so a plan whose answer was lost is put again.
type scheduleClient struct{ bookerClient }

// PutSchedule implements gateway.Schedules.
func (c scheduleClient) PutSchedule(ctx context.Context, doctorID int64, plan shared.SchedulePlan) (shared.ScheduleResult, error) {
	return ask(ctx, c.bookerClient, "schedule", "the plan may have been applied, put it again",
		shared.ScheduleRequest{V: shared.Version, DoctorID: doctorID, Plan: plan},
		func(r shared.ScheduleResult) (shared.Code, string) { return r.Code, r.Detail })
}
