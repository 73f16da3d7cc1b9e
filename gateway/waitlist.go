package gateway

import (
	"context"

	"termin/shared"
)

// Waitlist keeps patients' places in the lines of doctors' days. Like
// Schedules it writes nothing itself: a booker carries out each request, so
// every write to the booking tables stays in the booker.
type Waitlist interface {
	// Waitlist carries out one request (join, list or leave) and returns the
	// booker's answer; a refusal is the shared.Error of its code, no booker
	// answering in time is ErrUnavailable.
	Waitlist(ctx context.Context, req shared.WaitlistRequest) (shared.WaitlistResult, error)
}
