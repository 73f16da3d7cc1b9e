package jetstream

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"termin/booker"
	"termin/shared"
)

// answerRecorded answers, from the decisions bucket, every booking whose key
// was decided before: whatever the number of deliveries or repeats, a key is
// decided once. The batch's keys are read in one request: a read per command
// would cost a sixth of the service's CPU per booking.
func (w *Worker) answerRecorded(ctx context.Context, entries []*entry) {
	bySubject := map[string][]*entry{}
	for _, e := range entries {
		if key, ok := recordKey(e.cmd); ok && e.err == nil {
			subj := w.decisionSubject(key)
			bySubject[subj] = append(bySubject[subj], e)
		}
	}
	if len(bySubject) == 0 {
		return
	}
	found, err := w.recordedMany(ctx, slices.Collect(maps.Keys(bySubject)))
	for subj, es := range bySubject {
		for _, e := range es {
			if d, ok := found[subj]; ok && err == nil {
				e.decision, e.decided = sameBody(d, e.cmd), true
			}
			e.err = err
		}
	}
}

// decide runs the undecided commands through the database in one batch. A
// batch that keeps failing is split into single commands, so that one
// command's failure cannot hold back the others.
func (w *Worker) decide(ctx context.Context, entries []*entry) {
	var todo []*entry
	for _, e := range entries {
		if e.err == nil && !e.decided {
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return
	}
	err := w.decideTogether(ctx, todo)
	if err == nil || len(todo) == 1 {
		for _, e := range todo {
			e.err = errors.Join(e.err, err)
		}
		return
	}
	w.Log.Warn("batch failed; deciding its commands one by one", "err", err, "size", len(todo))
	for _, e := range todo {
		e.err = w.decideTogether(ctx, []*entry{e})
	}
}

func (w *Worker) decideTogether(ctx context.Context, todo []*entry) error {
	ops := make([]booker.Op, len(todo))
	for i, e := range todo {
		switch e.cmd.Kind {
		case shared.KindBook:
			ops[i].Book = &booker.BookRequest{SlotID: e.cmd.SlotID, SlotIDs: e.cmd.SlotIDs, PatientID: e.cmd.PatientID,
				IdempotencyKey: e.cmd.IdempotencyKey, Hold: e.cmd.Hold, Minutes: e.cmd.Minutes, ReplyToken: rowToken(e.cmd)}
		case shared.KindReschedule:
			ops[i].Reschedule = &booker.RescheduleRequest{AppointmentID: e.cmd.AppointmentID, SlotID: e.cmd.SlotID,
				PatientID: e.cmd.PatientID, IdempotencyKey: e.cmd.IdempotencyKey}
		case shared.KindConfirm:
			ops[i].Confirm = e.cmd.AppointmentID
		default:
			ops[i].Cancel = e.cmd.AppointmentID
		}
	}
	var out []booker.Outcome
	err := w.retry(ctx, func() (err error) {
		start := time.Now()
		out, err = w.Service.Decide(ctx, ops)
		w.Tracer.Observe(ctx, w.Metrics.Reserve, time.Since(start).Seconds())
		return err
	})
	if err != nil {
		return err
	}
	for i, e := range todo {
		e.outcome, e.decision = out[i], decision(e.cmd, out[i])
		e.decision.RequestID = e.cmd.RequestID
		w.count(e.decision)
	}
	w.announce(ctx, todo)
	return nil
}

// retry runs fn until it succeeds or the retries are spent.
func (w *Worker) retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || attempt >= w.Retries || errors.Is(err, booker.ErrPermanent) {
			return err
		}
		w.Metrics.Retries.Inc()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(25<<attempt) * time.Millisecond):
		}
	}
}

// decision turns an outcome into the wire's decision.
func decision(cmd shared.Command, o booker.Outcome) shared.Decision {
	var refused *shared.Error
	switch {
	case errors.As(o.Err, &refused):
		return shared.Decision{V: shared.Version, Code: refused.Code, Detail: refused.Msg, SlotID: cmd.SlotID,
			Hold: cmd.Hold, Minutes: cmd.Minutes}
	case cmd.Kind == shared.KindCancel:
		c := o.Cancellation
		return shared.Decision{V: shared.Version, Code: shared.Cancelled, Replay: !c.Changed,
			SlotID: c.SlotID, Appointment: wire(c.Appointment)}
	case cmd.Kind == shared.KindReschedule:
		r := o.Rescheduling
		return shared.Decision{V: shared.Version, Code: shared.Rescheduled, Replay: r.Replay, SlotID: cmd.SlotID,
			Appointment: wire(r.Appointment), Left: r.Left}
	case cmd.Kind == shared.KindConfirm:
		c := o.Confirmation
		return shared.Decision{V: shared.Version, Code: shared.Booked, Replay: !c.Changed,
			SlotID: c.SlotID, Appointment: wire(c.Appointment)}
	}
	b := o.Booking
	return shared.Decision{V: shared.Version, Code: shared.Booked, Replay: b.Replay, SlotID: b.SlotID,
		Hold: cmd.Hold, Minutes: cmd.Minutes, Appointment: wire(b.Appointment), Left: b.Left}
}

// announce tells the gateways each slot's latest state after the batch, in
// one message: one state per slot, not per booking.
func (w *Worker) announce(ctx context.Context, todo []*entry) {
	if w.Announcer == nil {
		return
	}
	booked, refused := map[int64]booker.Booking{}, map[int64]bool{}
	var states []shared.SlotState
	for _, e := range todo {
		switch {
		case e.decision.Code == shared.Booked && !e.decision.Replay:
			booked[e.outcome.Booking.SlotID] = e.outcome.Booking
		case e.decision.Code == shared.CodeSlotFull && e.cmd.Minutes == 0:
			// A longer visit refused as full may have found only a following slot taken.
			refused[e.cmd.SlotID] = true
		case e.decision.Code == shared.Cancelled && !e.decision.Replay:
			states = append(states, w.Announcer.Cancelled(e.outcome.Cancellation))
		case e.decision.Code == shared.Rescheduled && !e.decision.Replay:
			states = append(states, w.Announcer.Moved(e.outcome.Rescheduling)...)
		case e.outcome.Confirmation.Expired != nil:
			states = append(states, w.Announcer.Expired(*e.outcome.Confirmation.Expired)...)
		}
	}
	for _, b := range booked {
		states = append(states, w.Announcer.Booked(b))
	}
	for slot := range refused {
		if _, ok := booked[slot]; ok {
			continue
		}
		if s, ok := w.Announcer.Refused(ctx, slot); ok {
			states = append(states, s)
		}
	}
	w.Announcer.Send(ctx, states)
}

// sameBody turns a recorded decision into a refusal when the key comes back
// with another slot (or, for a move on record, another appointment): the key
// was reused with another body.
func sameBody(d shared.Decision, cmd shared.Command) shared.Decision {
	otherAppointment := cmd.Kind == shared.KindReschedule && d.Appointment != nil && d.Appointment.ID != cmd.AppointmentID
	if (d.SlotID != cmd.SlotID && !slices.Contains(cmd.SlotIDs, d.SlotID)) || d.Hold != cmd.Hold || d.Minutes != cmd.Minutes || otherAppointment {
		return shared.Decision{V: shared.Version, Code: shared.CodeIdempotencyKeyReused,
			Detail: booker.ErrKeyReused.Msg, SlotID: cmd.SlotID}
	}
	d.Replay = true
	return d
}

func (w *Worker) count(d shared.Decision) {
	outcome := string(d.Code)
	if d.Code == shared.Booked && d.Replay {
		outcome = "REPLAYED"
	}
	w.Metrics.Outcomes.WithLabelValues(outcome).Inc()
}

func wire(a booker.Appointment) *shared.Appointment {
	return &shared.Appointment{ID: a.ID, SlotID: a.SlotID, PatientID: a.PatientID, DoctorID: a.DoctorID,
		Status: string(a.Status), CreatedAt: a.CreatedAt.UTC().Format(time.RFC3339Nano),
		StartAt: rfc3339(a.StartAt), ExpiresAt: rfc3339(a.ExpiresAt), EndAt: rfc3339(a.EndAt)}
}

// recordKey is where the decision of a booking or a reschedule is kept in
// the decisions bucket; a cancellation has none (repeating it is harmless).
func recordKey(cmd shared.Command) (string, bool) {
	switch cmd.Kind {
	case shared.KindBook:
		return shared.DecisionKey(cmd.PatientID, cmd.IdempotencyKey), true
	case shared.KindReschedule:
		return shared.RescheduleDecisionKey(cmd.PatientID, cmd.IdempotencyKey), true
	}
	return "", false
}

// rfc3339 formats t in UTC, or gives "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
