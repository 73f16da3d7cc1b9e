package jetstream

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A delivery can be lost on its way to the booker: a NATS node cut off or
// back from a cut while it delivered, or a connection that broke with
// commands in its buffers. The consumer counts such a command as delivered
// and sends it again only after AckWait (30 s), while its patient waits.
// Each delivery of a consumer carries the next delivery sequence, and a
// partition's consumer delivers to the one booker it is pinned to, so a
// sequence skipped on the way in is a command this booker was sent and
// never got.

// resetSpacing keeps resets of one partition apart: the commands a reset
// sends again need a moment to arrive, and skipped sequences seen in the
// meantime are the same loss.
const resetSpacing = PullExpiry

// skipped notes the delivery sequence of the partition's latest message and
// returns how many deliveries before it never arrived. A sequence below the
// one before is no loss: a new consumer leader, or a reset, counts again
// from what it knows.
func (part *partition) skipped(meta *jetstream.MsgMetadata) uint64 {
	seq := meta.Sequence.Consumer
	last := part.delivered
	part.delivered = seq
	if last == 0 || seq <= last+1 {
		return 0
	}
	return seq - last - 1
}

// askAgain has the partition's consumer deliver again, from its ack floor,
// the commands lost on the way, rather than after AckWait. The commands in
// hand come again too, and are answered as the repeats they are. A server
// before 2.14 cannot reset a consumer: the lost commands then come back
// after AckWait, as before.
func (p *Pool) askAgain(part *partition, lost uint64) {
	if time.Since(part.reset) < resetSpacing {
		return
	}
	part.reset = time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if can, err := p.resetToAckFloor(ctx, part); can {
			p.Log.Warn("commands sent to this booker never arrived; the partition delivers again from its ack floor",
				"partition", part.n, "lost", lost, "err", err)
		}
	}()
}
