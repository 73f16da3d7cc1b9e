package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"termin/gateway"
	"termin/shared"
)

// Waitlist is the gateway's side of the waitlist request-reply with the bookers.
func (a *App) Waitlist() gateway.Waitlist {
	timeout := a.cfg.ScheduleTimeout
	if timeout <= 0 {
		timeout = defaultScheduleTimeout
	}
	return &waitlistClient{scheduleClient{nc: a.nc, subject: a.cfg.Namespace.Subject(shared.WaitlistSubject), timeout: timeout}}
}

// waitlistClient sends one request to one booker and waits for its answer,
// within the schedule's timeout. Joining and leaving are idempotent, so a
// request whose answer was lost may be sent again.
type waitlistClient struct{ c scheduleClient }

// Waitlist implements gateway.Waitlist.
func (w *waitlistClient) Waitlist(ctx context.Context, req shared.WaitlistRequest) (shared.WaitlistResult, error) {
	req.V = shared.Version
	data, err := json.Marshal(req)
	if err != nil {
		return shared.WaitlistResult{}, fmt.Errorf("waitlist: encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, w.c.timeout)
	defer cancel()
	msg, err := w.c.nc.RequestWithContext(ctx, w.c.subject, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return shared.WaitlistResult{}, fmt.Errorf("%w: no booker is running", gateway.ErrUnavailable)
	case err != nil:
		return shared.WaitlistResult{}, fmt.Errorf("%w: the waitlist did not answer: %v", gateway.ErrUnavailable, err)
	}
	var res shared.WaitlistResult
	if err := json.Unmarshal(msg.Data, &res); err != nil {
		return shared.WaitlistResult{}, fmt.Errorf("waitlist: decode answer: %w", err)
	}
	if res.Code != "" {
		return shared.WaitlistResult{}, shared.NewError(res.Code, res.Detail)
	}
	return res, nil
}
