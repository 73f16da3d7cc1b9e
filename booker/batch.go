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
		case op.Confirm != 0:
			out[i], err = o.confirm(ctx, op)
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

// confirm hands a confirmation to the service's own batch decision: a hold
// is confirmed or expired only where the places are counted.
func (o oneByOne) confirm(ctx context.Context, op Op) (Outcome, error) {
	bs, ok := o.svc.(BatchService)
	if !ok {
		return Outcome{}, errors.New("booker: this service cannot confirm holds")
	}
	out, err := bs.Decide(ctx, []Op{op})
	if err != nil {
		return Outcome{}, err
	}
	return out[0], out[0].Err
}
