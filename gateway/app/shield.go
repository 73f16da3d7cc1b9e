package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"termin/gateway"
)

// shield builds the burst shield in front of the queue: the per-patient
// limiter shared with the other gateways, the waiting room that follows the
// booker's slot announcements, and the slot-list cache.
func (a *App) shield(store dbReads, reg prometheus.Registerer) (*gateway.Front, *gateway.SlotLists, error) {
	ctx, stop := context.WithCancel(context.Background())
	a.stop = stop
	cache := gateway.NewSlotCache(store, time.Minute, 100_000)
	a.slots = cache
	front := &gateway.Front{Queue: a.queue, Slots: cache,
		Limiter: gateway.NewLimiter(a.cfg.RateLimit, a.cfg.RateWindow), Budget: a.cfg.ReplyBudget}
	front.Room = gateway.NewRoom(a.cfg.Room, front.Submit, cache.Recent, a.cfg.Logger)
	warmer := &gateway.Warmer{Source: openings{a.db}, Cache: cache, Room: front.Room,
		Ahead: max(a.cfg.Room.PreWindow, 10*time.Minute), Every: 2 * time.Second, Log: a.cfg.Logger}
	go warmer.Run(ctx)
	front.Metrics = gateway.NewFrontMetrics(reg, front.Room)
	lists := gateway.NewSlotLists(store, a.cfg.ListTTL, a.cfg.Zone)
	if err := a.queue.FollowSlots(front.Room, lists); err != nil {
		return nil, nil, err
	}
	if err := a.queue.ShareAttempts(ctx, front.Limiter, 50*time.Millisecond); err != nil {
		return nil, nil, err
	}
	go sweep(ctx, 5*time.Second, func() {
		front.Limiter.Sweep()
		front.Room.Sweep(2*time.Minute, 10*time.Minute)
	})
	return front, lists, nil
}

func sweep(ctx context.Context, every time.Duration, fn func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
