package jetstream

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/nats-io/nats.go"
	"termin/shared"
)

// replies gathers the replies of one batch by gateway inbox, so that each
// gateway gets one message for all of its commands the batch decided
// (shared.RepliesHeader) instead of a message per command: at 1,000
// bookings a second a batch holds a few dozen, and each reply was a
// publish, a routing and a delivery of its own.
type replies struct {
	w       *Worker
	byInbox map[string][]batchedReply
	inboxes []string // in the order first seen, so that replies leave in batch order
}

// batchedReply is one decision in a batch, as sent: Decision is its
// encoding, which the record shares.
type batchedReply struct {
	Token    string          `json:"token"`
	Decision json.RawMessage `json:"decision"`
	entry    *entry
}

// add answers e with the batch, or on its own when its gateway does not
// take batches or its reply subject has no inbox to batch on.
func (r *replies) add(e *entry) {
	e.replied = true
	subject := e.reply
	if subject == "" {
		return
	}
	inbox, token, ok := splitReply(subject)
	if !ok || !e.batched {
		r.w.reply(subject, e)
		return
	}
	data, err := e.encode()
	if err != nil {
		r.w.Log.Warn("reply not sent; the gateway answers the repeat from the record", "err", err)
		return
	}
	if r.byInbox == nil {
		r.byInbox = make(map[string][]batchedReply)
	}
	if _, seen := r.byInbox[inbox]; !seen {
		r.inboxes = append(r.inboxes, inbox)
	}
	r.byInbox[inbox] = append(r.byInbox[inbox], batchedReply{Token: token, Decision: data, entry: e})
}

// send publishes what add gathered: one message per inbox, or the plain
// reply when an inbox has only one.
func (r *replies) send(ctx context.Context) {
	defer r.w.Tracer.Reply(ctx, len(r.inboxes)).End()
	for _, inbox := range r.inboxes {
		batch := r.byInbox[inbox]
		if len(batch) == 1 {
			r.w.reply(inbox+"."+batch[0].Token, batch[0].entry)
			continue
		}
		data, err := json.Marshal(batch)
		if err == nil {
			err = r.w.Conn.Publish(inbox+"."+shared.RepliesToken, data)
		}
		if err != nil {
			r.w.Log.Warn("replies not sent; the gateways answer the repeats from the record", "err", err, "replies", len(batch))
		}
	}
	r.byInbox, r.inboxes = nil, nil
}

// splitReply cuts a gateway's reply subject (checkReply) into its inbox and
// its last token. A subject with a single token after the inbox prefix has
// no inbox of its own to batch on.
func splitReply(subject string) (inbox, token string, ok bool) {
	i := strings.LastIndexByte(subject, '.')
	if i < len(nats.InboxPrefix) || i == len(subject)-1 {
		return "", "", false
	}
	return subject[:i], subject[i+1:], true
}
