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

// defaultScheduleTimeout is how long the gateway waits for a booker to answer
// a request (a plan, a doctor, a waitlist request) when the configuration
// leaves it zero.
const defaultScheduleTimeout = 10 * time.Second

// bookerClient asks one booker over core NATS and waits for its answer: the
// gateway never writes the booking tables, so plans, doctors and waitlist
// requests go to a booker this way. Every such request is idempotent, so no
// booker, or none in time, is UNAVAILABLE and the caller may ask again.
type bookerClient struct {
	nc      *nats.Conn
	subject string
	timeout time.Duration
}

func (a *App) bookerClient(subject string) bookerClient {
	timeout := a.cfg.ScheduleTimeout
	if timeout <= 0 {
		timeout = defaultScheduleTimeout
	}
	return bookerClient{nc: a.nc, subject: a.cfg.Namespace.Subject(subject), timeout: timeout}
}

// ask sends req to a booker and decodes its reply; refusal reads the reply's
// code and detail (empty when the request was done). what names the request
// in errors, and late says what a timeout means for it.
func ask[R any](ctx context.Context, c bookerClient, what, late string, req any, refusal func(R) (shared.Code, string)) (R, error) {
	var res R
	data, err := json.Marshal(req)
	if err != nil {
		return res, fmt.Errorf("%s: encode request: %w", what, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	msg, err := c.nc.RequestWithContext(ctx, c.subject, data)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return res, fmt.Errorf("%w: no booker is running", gateway.ErrUnavailable)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return res, fmt.Errorf("%w: no booker answered within %v; %s", gateway.ErrUnavailable, c.timeout, late)
	case err != nil:
		return res, fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	if err := json.Unmarshal(msg.Data, &res); err != nil {
		return res, fmt.Errorf("%s: decode answer: %w", what, err)
	}
	if code, detail := refusal(res); code != "" {
		var zero R
		return zero, shared.NewError(code, detail)
	}
	return res, nil
}
