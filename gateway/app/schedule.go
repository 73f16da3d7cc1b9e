package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"termin/gateway"
	"termin/shared"
)

// defaultScheduleTimeout is how long the gateway waits for a booker to apply
// a plan when the configuration leaves it zero.
const defaultScheduleTimeout = 10 * time.Second

// Schedules is the gateway's side of the plan request-reply with the bookers:
// what the PUT route uses, and what seeds plans put as that route would.
func (a *App) Schedules() gateway.Schedules {
	timeout := a.cfg.ScheduleTimeout
	if timeout <= 0 {
		timeout = defaultScheduleTimeout
	}
	return &scheduleClient{nc: a.nc, subject: a.cfg.Namespace.Subject(shared.ScheduleSubject), timeout: timeout}
}

// scheduleClient sends a plan to one booker over core NATS and waits for its
// answer. No booker, or none in time, is UNAVAILABLE: the admin puts the plan
// again, which is harmless since applying a plan is idempotent.
type scheduleClient struct {
	nc      *nats.Conn
	subject string
	timeout time.Duration
}

// PutSchedule implements gateway.Schedules.
func (c *scheduleClient) PutSchedule(ctx context.Context, doctorID int64, plan shared.SchedulePlan) (shared.ScheduleResult, error) {
	data, err := json.Marshal(shared.ScheduleRequest{V: shared.Version, DoctorID: doctorID, Plan: plan})
	if err != nil {
		return shared.ScheduleResult{}, fmt.Errorf("schedule: encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	msg, err := c.nc.RequestWithContext(ctx, c.subject, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return shared.ScheduleResult{}, fmt.Errorf("%w: no booker is running", gateway.ErrUnavailable)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return shared.ScheduleResult{}, fmt.Errorf("%w: no booker answered within %v; the plan may have been applied, put it again", gateway.ErrUnavailable, c.timeout)
	case err != nil:
		return shared.ScheduleResult{}, fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	var res shared.ScheduleResult
	if err := json.Unmarshal(msg.Data, &res); err != nil {
		return shared.ScheduleResult{}, fmt.Errorf("schedule: decode answer: %w", err)
	}
	if res.Code != "" {
		return shared.ScheduleResult{}, shared.NewError(res.Code, res.Detail)
	}
	return res, nil
}
