package app

import (
	"context"
	"time"

	"termin/booker/jetstream/announce"
	"termin/shared"
)

// Defaults of the holds (seed, section 7).
const (
	defaultHoldTTL   = 10 * time.Minute
	defaultHoldSweep = 5 * time.Second
	// holdSweepLimit bounds one sweep's transaction; a longer backlog is
	// worked off in the following ticks.
	holdSweepLimit = 500
)

// HoldConfig sets how long a hold lasts and how often expired ones are freed.
type HoldConfig struct {
	// TTL is a hold's life unless confirmed; 0 means 10 min.
	TTL time.Duration
	// Sweep is how often the expiry job runs; 0 means 5 s.
	Sweep time.Duration
}

// startHoldExpiry runs the expiry job in this booker until the workers stop.
// Every booker runs it; the store's conditional update frees each hold's
// places exactly once however many run at the same moment.
func (a *App) startHoldExpiry(ann *announce.Announcer) {
	every := a.cfg.Holds.Sweep
	if every <= 0 {
		every = defaultHoldSweep
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				a.expireHolds(ctx, ann)
			}
		}
	}()
	stop := a.cancel
	a.cancel = func() {
		cancel()
		stop()
		<-done
	}
}

func (a *App) expireHolds(ctx context.Context, ann *announce.Announcer) {
	expired, err := a.Store.ExpireHolds(ctx, holdSweepLimit)
	if err != nil {
		if ctx.Err() == nil {
			a.cfg.Logger.Warn("hold expiry: trying again at the next tick", "err", err)
		}
		return
	}
	var states []shared.SlotState
	for _, e := range expired {
		a.cfg.Logger.Info("hold expired; its places are free again", "appointment", e.ID, "patient", e.PatientID, "slot", e.SlotID)
		states = append(states, ann.Expired(e)...)
	}
	ann.Send(ctx, states)
}
