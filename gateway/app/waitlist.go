package app

import (
	"context"

	"termin/gateway"
	"termin/shared"
)

// Waitlist is the gateway's side of the waitlist request-reply with the bookers.
func (a *App) Waitlist() gateway.Waitlist {
	return waitlistClient{a.bookerClient(shared.WaitlistSubject)}
}

// waitlistClient sends one request to one booker. Joining and leaving are
// idempotent, so a request whose answer was lost may be sent again.
type waitlistClient struct{ bookerClient }

// Waitlist implements gateway.Waitlist.
func (c waitlistClient) Waitlist(ctx context.Context, req shared.WaitlistRequest) (shared.WaitlistResult, error) {
	req.V = shared.Version
	return ask(ctx, c.bookerClient, "waitlist", "send it again",
		req, func(r shared.WaitlistResult) (shared.Code, string) { return r.Code, r.Detail })
}
