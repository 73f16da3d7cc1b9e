package booker

import (
	"context"
	"errors"

	"termin/shared"
)

// OneByOne decides a batch with one decision per op, for a Service that cannot
// decide batches itself (a test double, a deliberately broken booker). An
// infrastructure error ends the batch; the ops decided before it stay decided,
// and a retry answers them as replays.
func OneByOne(svc Service) BatchService { return oneByOne{svc} }

type oneByOne struct{ svc Service }

// Decide books, moves and cancels op by op, in order.
func (o oneByOne) Decide(ctx context.Context, ops []Op) ([]Outcome, error) {
	out := make([]Outcome, len(ops))
	for i, op := range ops {
		var err error
		switch {
		case op.Book != nil:
			out[i].Booking, err = o.svc.Book(ctx, *op.Book)
		case op.Reschedule != nil:
			out[i].Rescheduling, err = o.svc.Reschedule(ctx, *op.Reschedule)
		default:
			out[i].Cancellation, err = o.svc.Cancel(ctx, op.Cancel)
		}
		var refused *shared.Error
		switch {
		case errors.As(err, &refused):
			out[i].Err = err
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}
