package system_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	bookerapp "termin/booker/app"
	gatewayapp "termin/gateway/app"
	"termin/loadtest"
	"termin/loadtest/scenario"
	"termin/migrations/pgtest"
	"termin/system"
)

// burstClicks is how long the scaled burst sends new clicks: long enough for
// a click through the page to land inside it, short enough for `make test`.
const burstClicks = 4 * time.Second

// burstConns bounds the burst's connections per attack: its clients and the
// gateway share this process's descriptors, two per connection.
const burstConns = 1500

// startLikeRun starts the system as `make run` does — the services'
// settings from their flags' defaults and the environment, the embedded
// nats-server with its users, a development secret and its tokens, the
// demo — on a fresh database and free ports, logging to log.
func startLikeRun(t *testing.T, log *slog.Logger) (*system.System, system.DevAuth) {
	t.Helper()
	return startLikeRunWith(t, log, nil)
}

// startLikeRunWith is startLikeRun with the system's configuration changed
// by tune before it starts.
func startLikeRunWith(t *testing.T, log *slog.Logger, tune func(*system.Config)) (*system.System, system.DevAuth) {
	t.Helper()
	bcfg, err := bookerapp.ParseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	gcfg, err := gatewayapp.ParseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := system.NewDevAuth(nil)
	if err != nil {
		t.Fatal(err)
	}
	bcfg.Addr, gcfg.Addr, gcfg.Auth.Secret = "127.0.0.1:0", "127.0.0.1:0", dev.Secret
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	cfg := system.Config{DatabaseURL: pgtest.URL(t), DataDir: t.TempDir(),
		Booker: bcfg, Gateway: gcfg, SeedDemo: true, Logger: log}
	if tune != nil {
		tune(&cfg)
	}
	sys, err := system.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start system: %v", err)
	}
	t.Cleanup(func() { shutdown(sys.Shutdown) })
	return sys, dev
}

// burst is `make loadtest`'s opening running in the background.
type burst struct {
	opening loadtest.Opening
	opts    loadtest.Options
	done    chan struct{}
	rep     *loadtest.Report
	err     error
}

// startBurst runs the opening scenario of `make loadtest` with its defaults
// — the popular doctor's 40 slots (30 of one place, 10 of ten), 5,000
// clicks/s offered from 20,000 patients, 5 % of them clicking twice, 1,000
// slot-list reads/s of 20 other doctors — for burstClicks, the slots opening
// opensIn after seeding, and returns once they are seeded and named.
func startBurst(t *testing.T, sys *system.System, dev system.DevAuth, opensIn time.Duration) *burst {
	t.Helper()
	b := &burst{done: make(chan struct{}), opts: loadtest.Options{Scenario: loadtest.ScenarioOpening,
		GatewayURL: sys.Gateway.URL(), AuthToken: dev.AdminToken, DatabaseURL: sys.DatabaseURL,
		BookerMetricsURL: "http://" + sys.Booker.Addr() + "/metrics", Duration: burstClicks,
		OutDir: t.TempDir(), Seed: 19, Zone: berlin, Processes: []loadtest.ProcessGroup{}, Conns: burstConns, OpensIn: opensIn}}
	opened := make(chan loadtest.Opening, 1)
	b.opts.OnOpening = func(op loadtest.Opening) { opened <- op }
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(b.done)
		b.rep, b.err = scenario.Run(ctx, b.opts)
	}()
	t.Cleanup(func() { cancel(); <-b.done })
	select {
	case b.opening = <-opened:
	case <-b.done:
		t.Fatalf("the burst ended before its opening: %v", b.err)
	case <-time.After(time.Minute):
		t.Fatal("the burst announced no opening within a minute")
	}
	return b
}

// wait waits for the burst to end and fails the test unless every
// invariant held.
func (b *burst) wait(t *testing.T) {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the burst did not end within five minutes")
	}
	if b.err != nil || b.rep == nil || !b.rep.Passed {
		var text strings.Builder
		if b.rep != nil {
			_ = b.rep.WriteText(&text)
		}
		t.Fatalf("the burst: %v\n%s", b.err, text.String())
	}
	for _, a := range b.rep.Attacks {
		t.Logf("burst %s: %.0f/s offered, %d sent (%.0f/s), %d answered", a.Name, a.OfferedPerSec, a.Sent, a.SentPerSec, a.Answered)
	}
}
