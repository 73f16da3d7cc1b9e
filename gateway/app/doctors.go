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

// Doctors is the gateway's side of the doctor request-reply with the
// bookers, as Schedules is for plans.
func (a *App) Doctors() gateway.DoctorWriter {
	timeout := a.cfg.ScheduleTimeout
	if timeout <= 0 {
		timeout = defaultScheduleTimeout
	}
	return &doctorClient{nc: a.nc, subject: a.cfg.Namespace.Subject(shared.DoctorSubject), timeout: timeout}
}

// doctorClient sends a doctor to one booker and waits for its answer; no
// booker in time is UNAVAILABLE (putting the doctor again is harmless).
type doctorClient struct {
	nc      *nats.Conn
	subject string
	timeout time.Duration
}

// PutDoctor implements gateway.DoctorWriter.
func (c *doctorClient) PutDoctor(ctx context.Context, d shared.Doctor) (shared.Doctor, error) {
	data, err := json.Marshal(shared.DoctorRequest{V: shared.Version, Doctor: d})
	if err != nil {
		return shared.Doctor{}, fmt.Errorf("doctor: encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	msg, err := c.nc.RequestWithContext(ctx, c.subject, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return shared.Doctor{}, fmt.Errorf("%w: no booker is running", gateway.ErrUnavailable)
	case err != nil:
		return shared.Doctor{}, fmt.Errorf("%w: no booker answered: %v", gateway.ErrUnavailable, err)
	}
	var res shared.DoctorResult
	if err := json.Unmarshal(msg.Data, &res); err != nil {
		return shared.Doctor{}, fmt.Errorf("doctor: decode answer: %w", err)
	}
	if res.Code != "" {
		return shared.Doctor{}, shared.NewError(res.Code, res.Detail)
	}
	return res.Doctor, nil
}
