package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"termin/booker/schedule"
	"termin/shared"
)

// Defaults of the schedule settings, used for their zero values.
const (
	defaultOpeningTime = "07:00"
	defaultRollLead    = time.Hour
	defaultRollEvery   = time.Minute
	// applyTimeout bounds one plan's transaction; the gateway gives up
	// sooner, and the plan is still applied (putting it again is harmless).
	applyTimeout = 30 * time.Second
)

// ScheduleConfig sets the daily opening and its roll-forward job.
type ScheduleConfig struct {
	// OpeningTime is the daily opening, "HH:MM" in the clinic's zone; empty means 07:00.
	OpeningTime string
	// RollLead is how long before the opening its day's slots are written; 0 means 1 h.
	RollLead time.Duration
	// RollEvery is how often the job looks whether an opening is due; 0 means 1 min.
	RollEvery time.Duration
}

// calendar reads the schedule settings, with their defaults.
func (c ScheduleConfig) calendar(zone *time.Location) (schedule.Calendar, error) {
	opening, err := schedule.ParseOpening(or(c.OpeningTime, defaultOpeningTime))
	if err != nil {
		return schedule.Calendar{}, fmt.Errorf("OPENING_TIME: %w", err)
	}
	lead := c.RollLead
	if lead <= 0 {
		lead = defaultRollLead
	}
	return schedule.Calendar{Zone: zone, Opening: opening, Lead: lead}, nil
}

// startSchedules answers plan requests from the gateways (one booker of the
// queue group per request) and runs the roll-forward job. It must run after
// a.run: it chains the job's stop onto a.cancel, so that Shutdown and Kill
// stop the job and wait for it like the workers.
func (a *App) startSchedules() (err error) {
	defer func() {
		if err != nil {
			a.cancel() // the workers are running already
		}
	}()
	cal, err := a.cfg.Schedule.calendar(a.cfg.Zone)
	if err != nil {
		return err
	}
	subject := a.cfg.Stream.Namespace.Subject(shared.ScheduleSubject)
	if _, err := a.nc.QueueSubscribe(subject, shared.ScheduleQueue, func(m *nats.Msg) {
		a.applySchedule(m, cal)
	}); err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", subject, err)
	}
	doctors := a.cfg.Stream.Namespace.Subject(shared.DoctorSubject)
	if _, err := a.nc.QueueSubscribe(doctors, shared.ScheduleQueue, a.putDoctor); err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", doctors, err)
	}
	// Once started, the booker answers plans: the server has the subscription.
	if err := a.nc.Flush(); err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", subject, err)
	}
	every := a.cfg.Schedule.RollEvery
	if every <= 0 {
		every = defaultRollEvery
	}
	job := &schedule.Job{Roller: a.plans, Calendar: cal, Every: every, Log: a.cfg.Logger, Now: a.cfg.Clock.Now}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		job.Run(ctx)
	}()
	stopWorkers := a.cancel
	a.cancel = func() {
		cancel()
		stopWorkers()
		<-done
	}
	return nil
}

// applySchedule applies one plan request and answers it.
func (a *App) applySchedule(m *nats.Msg, cal schedule.Calendar) {
	res := shared.ScheduleResult{V: shared.Version}
	var req shared.ScheduleRequest
	if err := json.Unmarshal(m.Data, &req); err != nil || req.V != shared.Version || req.DoctorID <= 0 {
		res.Code, res.Detail = shared.CodeInvalidRequest, "malformed schedule request"
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), applyTimeout)
		applied, err := a.plans.PutSchedule(ctx, req.DoctorID, req.Plan, cal)
		cancel()
		res = toScheduleResult(applied, err)
		if res.Code == shared.CodeInternal {
			a.cfg.Logger.Error("schedule: applying a plan failed", "doctor", req.DoctorID, "err", err)
		}
	}
	data, err := json.Marshal(res)
	if err == nil {
		err = m.Respond(data)
	}
	if err != nil {
		a.cfg.Logger.Warn("schedule: answering a plan request failed", "err", err)
	}
}

// toScheduleResult is the wire form of what applying a plan did; an
// internal error's text stays in the booker's log.
func toScheduleResult(applied schedule.Applied, err error) shared.ScheduleResult {
	res := shared.ScheduleResult{V: shared.Version}
	if err != nil {
		res.Code, res.Detail = shared.CodeOf(err), err.Error()
		if res.Code == shared.CodeInternal {
			res.Detail = "the booker could not apply the plan"
		}
		return res
	}
	res.SlotsCreated, res.SlotsKept, res.SlotsWithdrawn, res.SlotsBlocked =
		applied.Created, applied.Kept, applied.Withdrawn, applied.Blocked
	for _, c := range applied.Conflicts {
		res.Conflicts = append(res.Conflicts, shared.ScheduleConflict{
			SlotID: c.ID, StartAt: c.StartAt.UTC().Format(time.RFC3339), Booked: c.BookedCount})
	}
	return res
}
