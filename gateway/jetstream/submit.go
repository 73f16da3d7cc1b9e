package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"termin/gateway"
	"termin/gateway/spans"
	"termin/shared"
	"termin/shared/tracing"
)

// Submit publishes the command and returns a channel that yields its decision:
// the booker's reply to this gateway, or, when the stream dropped the command
// as a duplicate of one published earlier (by any gateway), the decision put
// on record for the key. The channel closes without a decision when none
// came within MaxWait or the stream refused the command.
func (q *Queue) Submit(ctx context.Context, doctorID int64, msgID string, cmd shared.Command) (<-chan shared.Decision, error) {
	reply, ch, forget := q.expect()
	cmd.RequestID = reply[len(q.inbox)+1:]
	if cmd.TraceParent != "" {
		_, span := spans.Publish(q.tracer, tracing.Remote(cmd.TraceParent), string(cmd.Kind))
		defer span.End()
		cmd.TraceParent = traceParent(span)
	}
	out := make(chan shared.Decision, 1)
	sent := time.Now()
	if q.packer != nil && cmd.Kind == shared.KindBook {
		forget = q.packer.landing(doctorID, forget)
		pk, err := q.packer.addCommand(doctorID, msgID, reply, cmd)
		if err != nil {
			forget()
			return nil, err
		}
		own := len(pk.items) > 1 // an envelope's Msg-Id is this gateway's own
		go q.follow(out, ch, forget, func() (*jetstream.PubAck, error) { return pk.confirm(q, cmd) }, own, cmd, sent)
		return out, nil
	}
	msg, err := q.message(doctorID, msgID, reply, cmd)
	if err != nil {
		forget()
		return nil, err
	}
	if q.cfg.ConfirmAfter > 0 {
		if err := q.send(msg); err != nil {
			forget()
			return nil, err
		}
		confirm := func() (*jetstream.PubAck, error) {
			return q.confirmBounded(func() (*jetstream.PubAck, error) { return q.publish(context.Background(), msg, cmd) })
		}
		go q.follow(out, ch, forget, confirm, false, cmd, sent)
		return out, nil
	}
	ack, err := q.publish(ctx, msg, cmd)
	if err != nil {
		forget()
		return nil, err
	}
	go q.await(out, ch, forget, cmd, ack.Duplicate, 0, sent)
	return out, nil
}

// await waits for the decision of a command the stream holds. When the
// stream found the command a duplicate, it may be another gateway's, whose
// decision never comes here: the key's record is then read too, after
// firstRead and again after pauses doubling from firstRecordPoll, until the
// decision is found one way or the other (the pauses end at maxRecordPoll). A read that fails is tried again
// at the next one; only MaxWait ends the wait.
func (q *Queue) await(out chan<- shared.Decision, ch <-chan shared.Decision, forget func(), cmd shared.Command,
	duplicate bool, firstRead time.Duration, sent time.Time) {
	defer close(out)
	defer forget()
	deadline := time.NewTimer(q.cfg.MaxWait)
	defer deadline.Stop()
	if _, keyed := recordKey(cmd); !duplicate || !keyed {
		select {
		case d := <-ch:
			q.learn(time.Since(sent))
			out <- d
		case <-deadline.C:
		}
		return
	}
	pause := firstRecordPoll
	poll := time.NewTimer(firstRead)
	defer poll.Stop()
	for {
		select {
		case d := <-ch:
			q.learn(time.Since(sent))
			out <- d
			return
		case <-poll.C:
			if d, found := q.readRecord(cmd); found {
				out <- d
				return
			}
			poll.Reset(pause)
			pause = min(2*pause, maxRecordPoll)
		case <-deadline.C:
			return
		}
	}
}

// firstRecordPoll is the first pause between two reads of a duplicate's
// record. Mostly the duplicate is this gateway's own command, sent without a
// PubAck and late to be decided, and its decision comes as a reply: when
// the booker falls behind, thousands of commands wait at once, and reading
// each one's record every few hundred milliseconds would add the load that
// keeps the booker behind.
const firstRecordPoll = time.Second

// maxRecordPoll bounds the pause between two reads of a duplicate's record.
// Unbounded, the pauses of a command published again while the stream had no
// leader grew to 16 and 32 s while the new leader's backlog was decided, and
// its patient learnt the decision half a minute after it was made.
const maxRecordPoll = 4 * time.Second

// confirmPause is the first pause between two PubAck publishes of an
// undecided command; it doubles up to maxConfirmPause. Each publish waits up
// to PublishTimeout.
const (
	confirmPause    = 250 * time.Millisecond
	maxConfirmPause = 2 * time.Second
)

// follow waits for the decision of a command sent without a PubAck. Past
// its confirmWait it publishes the command (or its envelope) again with a
// PubAck (confirm): the stream then answers that it holds it already (a
// duplicate: the command may be another gateway's, so the key's record is
// read too), takes it now (the first publish was lost), or refuses it, and a
// refusal closes out without a decision.
//
// While the stream gives no answer at all (its leader cut off and no new
// one elected yet, or this gateway's connection lost and being replaced),
// the command may or may not be in it: it is published again, under the same
// Nats-Msg-Id, until the stream answers or MaxWait has passed, the pauses
// growing to maxConfirmPause and at most maxConfirming of them under way at
// once; the stream's first PubAck after the silence ends every pause (see
// silence). A command sent to a leader that was cut off before storing it
// reaches the new leader this way, within a second of its election, and the
// stream's duplicate window
// (as long as MaxWait) keeps it once however often it was sent. Giving up
// after a few attempts left such a command undecided for good, its patient
// answered 202 again and again.
//
// An own envelope (own: its Msg-Id is this gateway's) found a duplicate is
// this gateway's and its decisions come here as replies; its commands'
// records are read only past firstRead, in case a reply was lost. With the
// booker seconds behind, reading each late command's record at once cost
// CPU and a query per command, all before the booker had reached them.
func (q *Queue) follow(out chan<- shared.Decision, ch <-chan shared.Decision, forget func(),
	confirm func() (*jetstream.PubAck, error), own bool, cmd shared.Command, sent time.Time) {
	wait, over := q.confirmWait(), q.silence.over()
	for attempt := 0; ; attempt++ {
		if d, ok := decidedWithin(ch, wait, over); ok {
			q.learn(time.Since(sent))
			forget()
			out <- d
			close(out)
			return
		}
		over = q.silence.over()
		ack, err := confirm()
		switch {
		case err == nil:
			q.await(out, ch, forget, cmd, ack.Duplicate, q.firstRead(own), sent)
			return
		case !errors.Is(err, gateway.ErrUncertain) && !errors.Is(err, errNotConnected) && !errors.Is(err, errConfirmsBusy):
			forget() // refused: the stream does not hold the command
			close(out)
			return
		case time.Since(sent) >= q.cfg.MaxWait:
			forget() // a later decision is on record for the client's repeat
			close(out)
			return
		}
		wait = q.pause(attempt, err)
	}
}

// maxConfirming bounds the PubAck publishes of undecided commands under
// way at once, of all commands of this gateway. While the stream has no
// leader each one waits PublishTimeout for nothing, and thousands of
// commands waiting behind a slow booker, each published again every few
// seconds, were load enough to keep the booker slow.
const maxConfirming = 64

// maxConfirmQueue bounds how long a confirmation waits in line for one of
// the maxConfirming places; past it the command waits for its decision a
// while longer instead. The line is first come, first served (a channel's
// waiting senders are), and its places pass on the moment one is free:
// turned away at once and trying again a quarter second later, the
// thousands of commands of a NATS node's cut, woken together by the new
// leader's first PubAck, reached it 64 a quarter second, and the clicks of
// the cut's first seconds waited 8 s for their decisions.
const maxConfirmQueue = maxConfirmPause

// errConfirmsBusy is a confirmation not tried: maxConfirming were under
// way for all of maxConfirmQueue.
var errConfirmsBusy = errors.New("too many confirmations under way")

// confirmBounded runs confirm once it holds one of maxConfirming places,
// waiting up to maxConfirmQueue for it.
func (q *Queue) confirmBounded(confirm func() (*jetstream.PubAck, error)) (*jetstream.PubAck, error) {
	select {
	case q.confirming <- struct{}{}:
	default:
		line := time.NewTimer(maxConfirmQueue)
		defer line.Stop()
		select {
		case q.confirming <- struct{}{}:
		case <-line.C:
			return nil, errConfirmsBusy
		}
	}
	defer func() { <-q.confirming }()
	return confirm()
}

// firstRead is when a late command found a duplicate first reads its key's
// record: at once when the duplicate may be another gateway's, else (an own
// envelope) only once its reply has had time to come.
func (q *Queue) firstRead(own bool) time.Duration {
	if !own {
		return 0
	}
	return max(firstRecordPoll, q.confirmWait())
}

// recordKey is where the booker records the decision of a booking or a
// reschedule; a cancellation has no record.
func recordKey(cmd shared.Command) (string, bool) {
	switch cmd.Kind {
	case shared.KindBook:
		return shared.DecisionKey(cmd.PatientID, cmd.IdempotencyKey), true
	case shared.KindReschedule:
		return shared.RescheduleDecisionKey(cmd.PatientID, cmd.IdempotencyKey), true
	}
	return "", false
}

// readRecord reads the decision of cmd's key. The decision is a replay
// unless it decided this gateway's own command, the one with cmd's reply
// token.
func (q *Queue) readRecord(cmd shared.Command) (shared.Decision, bool) {
	d, ok, err := q.decisionOf(context.Background(), cmd)
	if err != nil || !ok {
		return shared.Decision{}, false
	}
	d.Replay = d.Replay || d.RequestID != cmd.RequestID
	return d, true
}

// decisionOf reads the decision of cmd's key: a booking's from the bucket
// or its row (Recorded), a reschedule's from the bucket.
func (q *Queue) decisionOf(ctx context.Context, cmd shared.Command) (shared.Decision, bool, error) {
	if cmd.Kind == shared.KindBook {
		return q.Recorded(ctx, cmd.PatientID, cmd.IdempotencyKey)
	}
	key, keyed := recordKey(cmd)
	if !keyed {
		return shared.Decision{}, false, nil
	}
	return q.recorded(ctx, key)
}

// Recorded reads the decision of a booking's key: from the decisions
// bucket, else, for a plain booking, which has no other record, from its
// appointment row.
func (q *Queue) Recorded(ctx context.Context, patientID int64, key string) (shared.Decision, bool, error) {
	d, ok, err := q.recorded(ctx, shared.DecisionKey(patientID, key))
	if ok || err != nil || q.cfg.Bookings == nil {
		return d, ok, err
	}
	return q.booked(ctx, patientID, key)
}

// booked reads the decision of a plain booking from its appointment row:
// the slot the key booked, and the appointment as it is now (its status, and
// its slot after a reschedule), as the booker answers a repeat it decides.
func (q *Queue) booked(ctx context.Context, patientID int64, key string) (shared.Decision, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, q.cfg.PublishTimeout)
	defer cancel()
	kb, ok, err := q.cfg.Bookings.KeyBooking(ctx, patientID, key)
	if err != nil || !ok {
		return shared.Decision{}, false, err
	}
	a := kb.Appointment
	return shared.Decision{V: shared.Version, Code: shared.Booked, SlotID: kb.BookedSlot, RequestID: kb.ReplyToken,
		Appointment: &shared.Appointment{ID: a.ID, SlotID: a.SlotID, PatientID: a.PatientID, Status: string(a.Status),
			CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339Nano), EndAt: rfc3339(a.EndAt)}}, true, nil
}

// rfc3339 formats t in UTC as the booker does, or gives "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// recorded reads the decision on record under the bucket key.
func (q *Queue) recorded(ctx context.Context, key string) (shared.Decision, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, q.cfg.PublishTimeout)
	defer cancel()
	e, err := q.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return shared.Decision{}, false, nil
	}
	if err != nil {
		return shared.Decision{}, false, fmt.Errorf("%w: decisions: %v", gateway.ErrUnavailable, err)
	}
	var d shared.Decision
	if err := json.Unmarshal(e.Value(), &d); err != nil {
		return shared.Decision{}, false, err
	}
	return d, true, nil
}
