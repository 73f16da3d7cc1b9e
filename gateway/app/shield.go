package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"termin/gateway"
	"termin/gateway/postgres"
)

// shield builds the burst shield in front of the queue: the per-patient
// limiter shared with the other gateways, the waiting room that follows the
// booker's slot announcements, and the slot-list cache.
func (a *App) shield(reads *postgres.Reader, reg prometheus.Registerer) (*gateway.Front, *gateway.SlotLists, error) {
	ctx, stop := context.WithCancel(context.Background())
	a.stop = stop
	slots := gateway.NewSlotCache(reads, time.Minute, 100_000)
	a.slots = slots
	// A place outlives its pre-queue window by its wait in line.
	places, err := a.queue.Places(ctx, a.cfg.Room.PreWindow+20*time.Minute)
	if err != nil {
		stop()
		return nil, nil, err
	}
	room := gateway.NewRoom(a.cfg.Room, a.queue, gateway.SlotSourceFunc(slots.Recent), a.cfg.Logger,
		gateway.WithPeerName(a.queue.ID()), gateway.WithPlaceRecord(places))
	front := &gateway.Front{Queue: a.queue, Slots: slots, Room: room,
		Limiter: gateway.NewLimiter(a.cfg.RateLimit, a.cfg.RateWindow, time.Now), Budget: a.cfg.ReplyBudget,
		Metrics: gateway.NewFrontMetrics(reg, room)}
	warmer := &gateway.Warmer{Source: reads, Cache: slots, Room: room,
		Ahead: max(a.cfg.Room.PreWindow, 10*time.Minute), Every: 2 * time.Second, Log: a.cfg.Logger}
	go warmer.Run(ctx)
	lists := gateway.NewSlotLists(reads, a.cfg.ListTTL, a.cfg.Zone)
	if err := a.queue.FollowSlots(front.Room, lists); err != nil {
		return nil, nil, err
	}
	if err := a.queue.ShareAttempts(ctx, front.Limiter, 50*time.Millisecond); err != nil {
		return nil, nil, err
	}
	if err := a.queue.ShareLines(ctx, room, 100*time.Millisecond); err != nil {
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
