package outbox

import "context"

// SetBeforeMark installs the fault seam between the PubAcks and the marking.
func SetBeforeMark(r *Relay, fn func(ctx context.Context) error) { r.beforeMark = fn }

// Rounds is how many rounds the relay has run: how often it asked the database.
func Rounds(r *Relay) int64 { return r.rounds.Load() }
