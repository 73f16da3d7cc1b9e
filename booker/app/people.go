package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"termin/shared"
)

// requestTimeout bounds the transactions of one request a gateway asks a
// booker to carry out beside the queue (waitlist, patient, practice, access).
const requestTimeout = 10 * time.Second

// DefaultRetention is how long personal data is kept after it was last
// needed: a year, the practice's appointment records' usual horizon.
const DefaultRetention = 8760 * time.Hour

// startPeople answers the gateways' patient, practice and access-log
// requests, one booker of the queue group per request, and runs the
// retention job.
func (a *App) startPeople() error {
	d := &desk{people: a.people, waitlist: a.waitlist, offerTTL: offerTTL(a.cfg), log: a.cfg.Logger}
	for subject, answer := range map[string]nats.MsgHandler{
		shared.PatientSubject:  respond(d.log, "patient", d.doPatient),
		shared.PracticeSubject: respond(d.log, "practice", d.doPractice),
		shared.AccessSubject:   respond(d.log, "access", d.doAccess),
	} {
		subject = a.cfg.Stream.Namespace.Subject(subject)
		if _, err := a.nc.QueueSubscribe(subject, shared.ScheduleQueue, answer); err != nil {
			return fmt.Errorf("nats: subscribe %s: %w", subject, err)
		}
	}
	if err := a.nc.Flush(); err != nil {
		return fmt.Errorf("nats: subscribe people: %w", err)
	}
	a.startRetention()
	return nil
}

// respond decodes a request of type Q, carries it out with do and answers
// with R; a malformed request is INVALID_REQUEST and changes nothing, and a
// failure's cause goes to the log, not to the gateway.
func respond[Q any, R any, PR interface {
	*R
	Refuse(shared.Code, string)
}](log *slog.Logger, what string, do func(context.Context, Q, PR) error) nats.MsgHandler {
	return func(m *nats.Msg) {
		var req Q
		res := PR(new(R))
		if err := json.Unmarshal(m.Data, &req); err != nil {
			res.Refuse(shared.CodeInvalidRequest, "malformed "+what+" request")
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
			err = do(ctx, req, res)
			cancel()
			if err != nil {
				code, detail := shared.CodeOf(err), err.Error()
				if code == shared.CodeInternal {
					log.Error(what+": request failed", "err", err)
					detail = "the booker could not carry out the request"
				}
				res.Refuse(code, detail)
			}
		}
		data, err := json.Marshal(res)
		if err == nil {
			err = m.Respond(data)
		}
		if err != nil {
			log.Warn(what+": answering failed", "err", err)
		}
	}
}

// retentionEvery is how often the retention job runs; personal data lives
// at most this long past its retention period.
const retentionEvery = time.Hour

// startRetention removes personal data older than Retention in this booker
// until it stops; every booker runs it, and each run is one transaction
// whose deletes and updates repeat harmlessly.
func (a *App) startRetention() {
	keep := a.cfg.Retention
	if keep <= 0 {
		keep = DefaultRetention
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(retentionEvery)
		defer t.Stop()
		for {
			if err := a.people.Retain(ctx, keep); err != nil && ctx.Err() == nil {
				a.cfg.Logger.Warn("retention: trying again in an hour", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	stop := a.cancel
	a.cancel = func() {
		cancel()
		stop()
		<-done
	}
}
