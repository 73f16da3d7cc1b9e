package jetstream

import (
	"context"
	"hash/fnv"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/booker/jetstream/members"
)

// Pool drains the partitions this booker holds in batches through a fixed
// number of lanes. Commands are routed to lanes by their slot, and each
// lane decides its batches one after the other, so a slot's requests are
// decided in the order the stream holds them. Size bounds this booker's
// concurrent transactions; it should not exceed the database pool.
//
// The partitions are shared with the other bookers (Members): each booker
// holds the partitions assign gives it among the bookers it hears, and only
// the holder asks for a partition's commands, so one doctor's commands are
// decided by one booker, in stream order. A booker hands a partition over
// by letting go of it once the commands it holds are decided; one that is
// not heard any more loses its partitions to the others at once.
type Pool struct {
	Partitions Partitions
	Worker     *Worker
	// Members is this booker's view of the others; nil holds every
	// partition alone.
	Members *members.Members
	Size    int
	// BatchSize and BatchWait bound a batch: it is cut when it is full, or
	// else once its oldest command has waited BatchWait.
	BatchSize int
	BatchWait time.Duration
	Log       *slog.Logger
	// Held, when set, is told which partitions this booker holds.
	Held func(held []bool)

	lanes []*lane
	parts []*partition
	// drop, when set, loses the deliveries it is true for before the pool
	// sees them, as a connection cut in mid-delivery does; tests set it.
	drop func(jetstream.Msg) bool
}

// Run holds partitions and decides their commands until ctx is cancelled.
// Then it stops asking for commands, finishes and acknowledges those in
// hand, lets its partitions go and returns.
func (p *Pool) Run(ctx context.Context) error {
	work := context.WithoutCancel(ctx) // messages in hand are finished after shutdown begins
	p.parts = make([]*partition, len(p.Partitions.Consumers))
	for i, c := range p.Partitions.Consumers {
		p.parts[i] = &partition{n: i, cons: c}
	}
	p.lanes = make([]*lane, p.Size)
	var wg sync.WaitGroup
	for i := range p.lanes {
		p.lanes[i] = newLane(p.BatchSize, p.company)
		wg.Go(func() { p.drain(work, p.lanes[i]) })
	}
	err := p.share(ctx)
	for _, l := range p.lanes {
		l.close()
	}
	wg.Wait()
	return err
}

// drain decides the lane's batches one after the other. A batch's NATS round
// trips (record, reply, ack) overlap the next batch's transaction, unless the
// two share a key: then the next waits, so that it finds the first's record.
func (p *Pool) drain(ctx context.Context, l *lane) {
	var prev *pending
	for {
		batch, ok := l.take(p.BatchWait)
		if !ok {
			break
		}
		if prev != nil && prev.overlaps(batch) {
			prev.wait()
		}
		prev = p.Worker.HandleBatch(ctx, batch)
	}
	if prev != nil {
		prev.wait()
	}
}

// route hands a command pulled from a partition to its lane. The pull is
// Consume's, whose messages wait in the subscription's own pending buffer
// while the lanes are busy: Messages' buffer holds one pull's worth, and
// the second pull a missed heartbeat or a reconnect sends while the first
// still delivers overflowed it, the client dropping commands. A delivery
// lost on the way shows as a skipped delivery sequence (lost.go).
func (p *Pool) route(part *partition, m jetstream.Msg) {
	entries := p.Worker.parse(m)
	part.hand.Add(len(entries))
	var pending uint64
	if meta, err := m.Metadata(); err == nil {
		pending = meta.NumPending
		if lost := part.skipped(meta); lost > 0 {
			p.askAgain(part, lost)
		}
	}
	was := part.ahead.Swap(pending)
	for _, e := range entries {
		e.hand = &part.hand
		p.lanes[laneOf(e, len(p.lanes))].push(e)
	}
	if was > 0 && part.ahead.Load() == 0 {
		p.wakeLanes()
	}
}

// company reports whether commands are still pending in the stream for a
// partition this booker pulls: then a short batch waits for them.
func (p *Pool) company() bool {
	for _, part := range p.parts {
		if part.ahead.Load() > 0 {
			return true
		}
	}
	return false
}

// wakeLanes has every waiting lane look again: the last pending command
// was pulled, and a lane whose batch waits for company need wait no more.
func (p *Pool) wakeLanes() {
	for _, l := range p.lanes {
		l.wake()
	}
}

// laneOf routes a command by its slot: one slot's commands are decided in
// the order the stream holds them, while the slots of one popular doctor are
// decided side by side. A command without a slot goes by its subject.
func laneOf(e *entry, lanes int) int {
	if e.err == nil && e.cmd.SlotID > 0 {
		return int(uint64(e.cmd.SlotID) % uint64(lanes))
	}
	h := fnv.New32a()
	h.Write([]byte(e.msg.Subject()))
	return int(h.Sum32() % uint32(lanes))
}

// WatchQueue keeps the pending and ack-pending gauges current until ctx
// ends: the sums over the partitions, which every booker reads alike.
func WatchQueue(ctx context.Context, parts Partitions, m *Metrics, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		var pending, ackPending float64
		for _, c := range parts.Consumers {
			if info, err := c.Info(ctx); err == nil {
				pending += float64(info.NumPending)
				ackPending += float64(info.NumAckPending)
			}
		}
		m.Pending.Set(pending)
		m.AckPending.Set(ackPending)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
