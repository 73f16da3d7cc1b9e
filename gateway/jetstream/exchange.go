package jetstream

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
)

// peers is the queue's side of the exchanges between gateways (attempts,
// line loads, place notes): what it tells the others and how it knows
// their messages from its own. The queue's own work, commands and their
// decisions, is the Queue's.
type peers struct{ *Queue }

// peerOrigin is the origin of a message one of the other gateways sent on an
// exchange subject, or "" for this gateway's own messages and for messages
// no gateway could have sent.
func (q peers) peerOrigin(m *nats.Msg) string {
	origin := m.Header.Get(originHeader)
	if origin == q.inbox || len(origin) > 128 {
		return ""
	}
	return origin
}

// everyTick calls send every interval, with the tick's number, until ctx
// ends; then it stops listening on sub. The gateways' exchanges (attempts,
// lines, places) each run one.
func everyTick(ctx context.Context, sub *nats.Subscription, every time.Duration, send func(tick int)) {
	defer sub.Unsubscribe()
	t := time.NewTicker(every)
	defer t.Stop()
	for tick := 0; ; tick++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			send(tick)
		}
	}
}

// tell publishes data to the other gateways on subject, marked as this
// gateway's; full marks a message that carries all of this gateway's state.
func (q peers) tell(subject string, data []byte, full bool) {
	msg := nats.NewMsg(q.cfg.Namespace.Subject(subject))
	msg.Header.Set(originHeader, q.inbox)
	if full {
		msg.Header.Set(fullHeader, "1")
	}
	msg.Data = data
	_ = q.nc.PublishMsg(msg)
}
