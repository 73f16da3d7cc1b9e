package outbox

import "context"

// SetBeforeMark installs the fault seam between the PubAcks and the marking.
func SetBeforeMark(r *Relay, fn func(ctx context.Context) error) { r.beforeMark = fn }
