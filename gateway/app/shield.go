package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"termin/gateway"
	"termin/gateway/limit"
	"termin/gateway/postgres"
	"termin/gateway/room"
	"termin/gateway/warm"
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
	waiting := room.New(a.cfg.Room, a.queue, gateway.SlotSourceFunc(slots.Recent), a.cfg.Logger,
		room.WithPeerName(a.queue.ID()), room.WithPlaceRecord(places), room.WithClock(a.cfg.Clock.Now))
	a.room = waiting
	a.limiter = limit.New(a.cfg.RateLimit, a.cfg.RateWindow, time.Now)
	front := &gateway.Front{Queue: a.queue, Slots: slots, Room: waiting, Limiter: a.limiter, Budget: a.cfg.ReplyBudget,
		Clock: a.cfg.Clock, Metrics: gateway.NewFrontMetrics(reg, waiting)}
	warmer := &warm.Warmer{Source: reads, Cache: slots, Room: waiting,
		Ahead: max(a.cfg.Room.PreWindow, 10*time.Minute), Every: 2 * time.Second, Clock: a.cfg.Clock, Log: a.cfg.Logger}
	go warmer.Run(ctx)
	lists := gateway.NewSlotLists(reads, a.cfg.ListTTL, a.cfg.Zone)
	if err := a.queue.FollowSlots(waiting, lists); err != nil {
		return nil, nil, err
	}
	if err := a.queue.ShareAttempts(ctx, a.limiter, 50*time.Millisecond); err != nil {
		return nil, nil, err
	}
	if err := a.queue.ShareLines(ctx, waiting.Exchange(), 100*time.Millisecond); err != nil {
		return nil, nil, err
	}
	go sweep(ctx, 5*time.Second, func() {
		a.limiter.Sweep()
		waiting.Sweep(2*time.Minute, 10*time.Minute)
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
