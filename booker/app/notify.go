package app

import (
	"context"
	"sync"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"termin/booker/jetstream/announce"
	"termin/booker/notify"
	"termin/booker/outbox"
)

// events runs this booker's outbox relay and notifier in the background. Its
// zero value runs nothing, so Shutdown and Kill need no check.
type events struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// wake tells this booker's relay of a decided batch (nil without a relay).
	wake func()
}

// startEvents creates the events stream and starts what the configuration
// enables; both run in every booker by default, safely side by side.
func (a *App) startEvents(ctx context.Context, js natsjs.JetStream, reg prometheus.Registerer, ann *announce.Announcer) error {
	if a.cfg.DisableRelay && a.cfg.DisableNotifier {
		return nil
	}
	if _, err := outbox.Setup(ctx, js, a.cfg.Stream.Namespace, a.cfg.Stream.Replicas); err != nil {
		return err
	}
	var n *notify.Notifier
	if !a.cfg.DisableNotifier {
		cons, err := notify.Setup(ctx, js, a.cfg.Stream.Namespace, a.cfg.Stream.Replicas)
		if err != nil {
			return err
		}
		n = a.notifier(js, cons, notify.NewMetrics(reg))
	}
	run, cancel := context.WithCancel(context.Background())
	a.events.cancel = cancel
	if !a.cfg.DisableRelay {
		// Rounds of up to 500 rows at most four times a second under load: each
		// round is a transaction, a stream write synced to disk and a
		// delivery to the notifier, and confirmations need not go out
		// sooner; at rest a commit wakes the relay at once.
		relay := &outbox.Relay{DB: a.db, JS: js, Namespace: a.cfg.Stream.Namespace, Log: a.cfg.Logger,
			Batch: 500, Idle: 250 * time.Millisecond, Tracer: tracerOf(a.tracerProvider())}
		a.events.wake = relay.Wake
		a.background(func() { _ = relay.Run(run) })
		job, err := a.reminderJob()
		if err != nil {
			cancel()
			return err
		}
		if job != nil {
			a.background(func() { _ = job.Run(run) })
		}
		if err := a.startOffers(ctx, js, run, ann); err != nil {
			cancel()
			return err
		}
		metrics := outbox.NewMetrics(reg)
		a.background(func() { outbox.WatchBacklog(run, a.db, metrics, time.Second, a.cfg.Logger) })
	}
	if n != nil {
		a.background(func() { _ = n.Run(run) })
	}
	return nil
}

func (a *App) notifier(js natsjs.JetStream, cons natsjs.Consumer, m *notify.Metrics) *notify.Notifier {
	c := a.cfg.Notify
	n := &notify.Notifier{DB: a.db, JS: js, Consumer: cons, Namespace: a.cfg.Stream.Namespace, Zone: a.cfg.Zone, MaxDeliver: c.MaxDeliver,
		RetryBase: c.RetryBase, Metrics: m, Log: a.cfg.Logger, Mail: notify.Unsent{Log: a.cfg.Logger},
		Doctors: &notify.DoctorCache{DB: a.db}, Clock: a.cfg.Clock, Tracer: tracerOf(a.tracerProvider())}
	from := or(c.SMTPFrom, "termine@praxis.example")
	n.Practice = notify.Practice{Name: c.PracticeName, Address: c.PracticeAddress, PublicURL: c.PublicURL, From: from}
	switch {
	case c.SMTPAddr != "":
		n.Mail = &notify.SMTP{Addr: c.SMTPAddr, From: from, User: c.SMTPUser, Password: c.SMTPPassword}
	case c.MailFile != "":
		n.Mail = &notify.Mailbox{Path: c.MailFile, From: from, Log: a.cfg.Logger}
		a.cfg.Logger.Info("e-mails go to a local mailbox file, not to a mail server (SMTP_ADDR sends them)", "file", c.MailFile)
	}
	if c.SMSWebhookURL != "" {
		n.SMS = &notify.Webhook{URL: c.SMSWebhookURL, Token: c.SMSToken}
	}
	return n
}

func (a *App) background(fn func()) {
	a.events.wg.Go(fn)
}

// stopEvents asks the relay and the notifier to stop; they finish what they hold.
func (a *App) stopEvents() {
	if a.events.cancel != nil {
		a.events.cancel()
	}
}

// eventsDone is closed once the relay and the notifier have returned.
func (a *App) eventsDone() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		a.events.wg.Wait()
		close(done)
	}()
	return done
}
