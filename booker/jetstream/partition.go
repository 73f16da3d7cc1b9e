package jetstream

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/booker/jetstream/members"
)

// partition is one of the stream's partitions as this booker holds it.
type partition struct {
	n     int
	cons  jetstream.Consumer
	state partitionState
	// pulling consumes the partition's commands while it is held.
	pulling jetstream.ConsumeContext
	// hand counts the commands pulled and not yet settled (entry.settled).
	hand sync.WaitGroup
	// ahead is how many of its commands the stream held undelivered behind
	// the last one pulled (see Pool.company).
	ahead atomic.Uint64
	// delivered is the delivery sequence of the last message pulled, and
	// reset when the consumer was last told to deliver again (lost.go);
	// only the partition's Consume callback touches them.
	delivered uint64
	reset     time.Time
}

type partitionState int

const (
	free partitionState = iota
	held
	releasing
)

// share holds the partitions assign gives this booker until ctx ends, then
// lets every one go. It first takes the partitions no booker is pinned to,
// as the first booker of a system does, then listens to the others for two
// beats before it shares: a booker that starts beside others must not take
// their partitions for free ones.
func (p *Pool) share(ctx context.Context) error {
	changed := make(<-chan struct{})
	if p.Members != nil {
		if err := p.Members.Start(ctx); err != nil {
			return err
		}
		changed = p.Members.Changed()
		p.takeUnpinned(ctx)
		select {
		case <-ctx.Done():
		case <-time.After(2 * p.Members.Beat):
		}
	}
	released := make(chan *partition, len(p.parts))
	tick := time.NewTicker(p.beat())
	defer tick.Stop()
	for ctx.Err() == nil {
		p.reconcile(ctx, released)
		select {
		case <-ctx.Done():
		case <-tick.C:
		case <-changed:
		case part := <-released:
			part.state = free
		}
	}
	p.releaseAll(released)
	if p.Members != nil {
		p.Members.Leave()
	}
	return nil
}

func (p *Pool) beat() time.Duration {
	if p.Members == nil {
		return time.Second
	}
	return p.Members.Beat
}

// takeUnpinned acquires each partition that no booker is pinned to: none
// pulls it, so nobody's commands are in hand but a dead booker's, which
// acquire hands back. The shares come after listening.
func (p *Pool) takeUnpinned(ctx context.Context) {
	for _, part := range p.parts {
		info, err := part.cons.Info(ctx)
		if err == nil && !pinned(info) {
			p.acquire(ctx, part)
		}
	}
	p.announce()
}

// canPin is whether the server pins the partition's consumer to one
// booker: it reports the priority policy only from 2.11 on.
func canPin(part *partition) bool {
	return part.cons.CachedInfo().Config.PriorityPolicy == jetstream.PriorityPolicyPinned
}

// serverAtLeast is whether a server version ("2.15.3") is major.minor or
// newer.
func serverAtLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	return err1 == nil && err2 == nil && (ma > major || ma == major && mi >= minor)
}

func pinned(info *jetstream.ConsumerInfo) bool {
	for _, g := range info.PriorityGroups {
		if g.PinnedClientID != "" {
			return true
		}
	}
	return false
}

// reconcile asks for the partitions given to this booker that nobody else
// holds, and lets go of the ones given to another.
func (p *Pool) reconcile(ctx context.Context, released chan<- *partition) {
	owners := p.owners()
	for _, part := range p.parts {
		mine := owners[part.n] == p.self()
		switch {
		case mine && part.state == free && !p.heldByOther(part.n):
			p.acquire(ctx, part)
		case !mine && part.state == held:
			part.state = releasing
			go func() {
				p.release(part)
				released <- part
			}()
		}
	}
	p.announce()
}

func (p *Pool) owners() []string {
	if p.Members == nil {
		return members.Assign([]string{""}, len(p.parts))
	}
	return members.Assign(p.Members.Live(), len(p.parts))
}

func (p *Pool) self() string {
	if p.Members == nil {
		return ""
	}
	return p.Members.ID
}

func (p *Pool) heldByOther(n int) bool { return p.Members != nil && p.Members.HeldByOther(n) }

// announce tells the others, and the Held hook, which partitions this
// booker holds; one it is letting go of is held until the last of its
// commands is settled.
func (p *Pool) announce() {
	var list []int
	flags := make([]bool, len(p.parts))
	for _, part := range p.parts {
		if part.state != free {
			list = append(list, part.n)
			flags[part.n] = true
		}
	}
	if p.Members != nil {
		p.Members.SetHeld(list)
	}
	if p.Held != nil {
		p.Held(flags)
	}
}

// acquire takes a partition nobody holds: it unpins whichever booker the
// server still has it pinned to (one that died), hands back the commands
// that booker had pulled and not settled (the consumer is reset to its ack
// floor, so they come again first, in stream order), and starts pulling.
// A server before 2.14 cannot reset a consumer: those commands then come
// back after AckWait. One before 2.11 pins nothing (Setup's consumer has no
// priority policy there): each booker still asks only for its own
// partitions, but while two disagree about one, both get its commands.
func (p *Pool) acquire(ctx context.Context, part *partition) {
	name := part.cons.CachedInfo().Name
	api, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	opts := []jetstream.PullConsumeOpt{jetstream.PullMaxMessages(2 * p.Size * p.BatchSize), jetstream.PullExpiry(PullExpiry),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			p.Log.Warn("pulling commands", "partition", part.n, "err", err)
		})}
	if canPin(part) {
		if err := p.Partitions.Stream.UnpinConsumer(api, name, Group); err != nil {
			p.Log.Debug("unpinning a partition", "partition", part.n, "err", err)
		}
		opts = append(opts, jetstream.PullPriorityGroup(Group))
	}
	if _, err := p.resetToAckFloor(api, part); err != nil {
		p.Log.Debug("resetting a partition to its ack floor", "partition", part.n, "err", err)
	}
	part.delivered = 0
	cc, err := part.cons.Consume(func(m jetstream.Msg) {
		if p.drop == nil || !p.drop(m) {
			p.route(part, m)
		}
	}, opts...)
	if err != nil {
		p.Log.Warn("pulling a partition", "partition", part.n, "err", err)
		return
	}
	part.pulling, part.state = cc, held
	p.Log.Debug("partition taken", "partition", part.n)
}

// resetToAckFloor has the partition's consumer deliver again, from its ack
// floor, every command not yet acknowledged. It reports false, without
// asking, to a server before 2.14, which cannot reset a consumer.
func (p *Pool) resetToAckFloor(ctx context.Context, part *partition) (bool, error) {
	if !serverAtLeast(p.Worker.Conn.ConnectedServerVersion(), 2, 14) {
		return false, nil
	}
	_, err := p.Worker.JS.ResetConsumer(ctx, p.Partitions.Stream.CachedInfo().Config.Name, part.cons.CachedInfo().Name)
	return true, err
}

// release stops pulling a partition, waits until every command pulled from
// it is settled, and unpins it, so that the booker it is given to gets its
// next commands at once, after the last of this one's.
func (p *Pool) release(part *partition) {
	part.pulling.Drain()
	<-part.pulling.Closed()
	part.ahead.Store(0)
	part.hand.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if canPin(part) {
		if err := p.Partitions.Stream.UnpinConsumer(ctx, part.cons.CachedInfo().Name, Group); err != nil {
			p.Log.Debug("unpinning a partition let go", "partition", part.n, "err", err)
		}
	}
	p.Log.Debug("partition let go", "partition", part.n)
}

// releaseAll lets every partition go at shutdown, waiting for those
// already on their way.
func (p *Pool) releaseAll(released chan *partition) {
	busy := 0
	for _, part := range p.parts {
		switch part.state {
		case held:
			part.state = releasing
			go func() {
				p.release(part)
				released <- part
			}()
			busy++
		case releasing:
			busy++
		}
	}
	for ; busy > 0; busy-- {
		(<-released).state = free
	}
	p.announce()
}
