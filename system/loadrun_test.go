package system_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"termin/booker"
	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/gateway"
	gatewayapp "termin/gateway/app"
	gwhttp "termin/gateway/http"
	"termin/loadtest"
	"termin/loadtest/scenario"
	"termin/migrations/pgtest"
	"termin/system"

	"github.com/jackc/pgx/v5/pgxpool"
)

// startSystem brings a whole system up in this process on a fresh database:
// real PostgreSQL, an embedded nats-server, a booker and a gateway on free
// ports. decorate may wrap the booker's decision core.
func startSystem(t *testing.T, decorate func(booker.Service) booker.Service) (*system.System, string) {
	t.Helper()
	dbURL := pgtest.URL(t)
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	sys, err := system.Start(ctx, system.Config{
		DatabaseURL: dbURL, DataDir: t.TempDir(), Logger: quiet,
		Booker: bookerapp.Config{Addr: "127.0.0.1:0", Zone: berlin, Workers: 4, BatchSize: 50, BatchWait: 2 * time.Millisecond, DBConns: 10, Migrate: true,
			Stream: jetstream.DefaultConfig(), Decorate: decorate},
		Gateway: gatewayapp.Config{Addr: "127.0.0.1:0", Zone: berlin, ReplyBudget: 500 * time.Millisecond,
			PublishTimeout: 300 * time.Millisecond, ReadConns: 4, SubjectPrefix: "booking", Auth: gwhttp.AuthConfig{Disabled: true},
			RateLimit: 5, RateWindow: 10 * time.Second, Room: gateway.DefaultRoomConfig(), ListTTL: 2 * time.Second},
	})
	if err != nil {
		t.Fatalf("start system: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = sys.Shutdown(ctx)
	})
	return sys, dbURL
}

// smallOpening is the opening scenario shrunk to a few seconds at a low rate:
// 600 clicks from 300 patients on 8 slots with 16 places, opening a second
// after seeding.
func smallOpening(t *testing.T, sys *system.System, dbURL string) loadtest.Options {
	return loadtest.Options{
		Scenario: loadtest.ScenarioOpening, GatewayURL: sys.Gateway.URL(),
		BookerMetricsURL: "http://" + sys.Booker.Addr() + "/metrics", DatabaseURL: dbURL,
		Rate: 200, Duration: 3 * time.Second, ReadsRate: 50, Patients: 300,
		SingleSlots: 6, GroupSlots: 2, GroupCapacity: 5, ReadDoctors: 3,
		FollowUp: 20 * time.Second, OutDir: t.TempDir(), Seed: 42, Zone: berlin, OpensIn: time.Second,
	}
}

// TestOpeningBurstKeepsEveryInvariant runs the opening shrunk: every
// invariant holds, the report gives its parts, each budget of the scenario
// is measured and printed, and after the run the list patients see names
// no load-test doctor, while the popular one was named during it.
func TestOpeningBurstKeepsEveryInvariant(t *testing.T) {
	sys, dbURL := startSystem(t, nil)
	o := smallOpening(t, sys, dbURL)
	var opening loadtest.Opening
	named, db := "", pgtest.Open(t, dbURL, 2, nil)
	o.OnOpening = func(op loadtest.Opening) { opening, named = op, doctorName(t, db, op.Doctor) }
	rep, err := scenario.Run(t.Context(), o)
	if err != nil {
		if rep != nil {
			logReport(t, rep)
		}
		t.Fatalf("run: %v", err)
	}
	checkOpening(t, dbURL, opening, 8)
	if named != opening.Name || named == "" {
		t.Errorf("the popular doctor was named %q during the run, want %q", named, opening.Name)
	}
	checkNoLoadTestDoctorListed(t, sys.Gateway.URL(), db)
	if !rep.Passed {
		t.Fatal("report not marked passed")
	}
	checkBudgetsReported(t, rep)
	for _, name := range []string{"report.txt", "report.json", "chart.png"} {
		if fi, err := os.Stat(filepath.Join(rep.Dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if txt, err := os.ReadFile(filepath.Join(rep.Dir, "report.txt")); err != nil || !bytes.Contains(txt, []byte("result: PASS")) {
		t.Errorf("saved report.txt does not say PASS (err %v)", err)
	}
	if len(rep.Answers) == 0 || len(rep.Metrics) == 0 {
		t.Errorf("report lacks answers (%d lines) or metric deltas (%d lines)", len(rep.Answers), len(rep.Metrics))
	}
	checkFirstSecond(t, rep)
	checkStreamsApart(t, rep)
}

// checkStreamsApart: the chart's per-second series count the clicks, their
// repeats and the slot-list reads apart, each adding up to its stream's
// total, and the three make the second's whole.
func checkStreamsApart(t *testing.T, rep *loadtest.Report) {
	t.Helper()
	sums := map[string]int{}
	for _, s := range rep.Series {
		sums["clicks"] += s.SentClicks
		sums["repeats"] += s.SentRepeats
		sums["reads"] += s.SentReads
		if s.SentClicks+s.SentRepeats+s.SentReads != s.Sent {
			t.Errorf("second %d: %d clicks, %d repeats and %d reads sent, but %d requests", s.Second, s.SentClicks, s.SentRepeats, s.SentReads, s.Sent)
		}
	}
	for _, a := range rep.Attacks {
		if uint64(sums[a.Name]) != a.Sent {
			t.Errorf("stream %s: %d sent by the seconds, %d in the rates", a.Name, sums[a.Name], a.Sent)
		}
	}
	if sums["clicks"] == 0 || sums["reads"] == 0 {
		t.Errorf("seconds counted %v: want clicks and reads", sums)
	}
}

// checkFirstSecond: the report gives the opening's first second on its own,
// its clicks a part of the run's, its winners a part of those.
func checkFirstSecond(t *testing.T, rep *loadtest.Report) {
	t.Helper()
	lines := map[string]loadtest.LatencyLine{}
	for _, l := range rep.Opening {
		lines[l.Key] = l
	}
	all, first := lines["every decided click"], lines["every decided click, first second"]
	booked, won := lines["booked (201/200)"], lines["booked, first second"]
	if first.Count == 0 || first.Count >= all.Count || won.Count > first.Count || won.Count > booked.Count || booked.Count == 0 {
		t.Errorf("first second of the opening: %+v", rep.Opening)
	}
}

func TestRacyBookerFailsTheInvariantCheck(t *testing.T) {
	var racy *racyBooker
	sys, dbURL := startSystem(t, func(inner booker.Service) booker.Service {
		racy = newRacyBooker(t, inner)
		return racy
	})
	racy.connect(t, dbURL)
	rep, err := scenario.Run(t.Context(), smallOpening(t, sys, dbURL))
	if !errors.Is(err, loadtest.ErrInvariant) {
		t.Fatalf("run with a racy booker: err = %v, want %v", err, loadtest.ErrInvariant)
	}
	failed := map[string]bool{}
	for _, c := range rep.Checks {
		failed[c.Name] = !c.OK
	}
	if !failed["no slot over capacity"] && !failed["booked_count = BOOKED rows"] {
		logReport(t, rep)
		t.Errorf("neither the capacity nor the count check failed: %+v", rep.Checks)
	}
}

// checkOpening: the popular doctor's slots opened at one instant and
// nothing of them was booked before it.
func checkOpening(t *testing.T, dbURL string, op loadtest.Opening, slots int) {
	t.Helper()
	db, err := pgxpool.New(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids := make([]int64, len(op.Slots))
	for i, s := range op.Slots {
		ids[i] = s.ID
	}
	var atOpening, early int
	err = db.QueryRow(t.Context(), `SELECT
            (SELECT count(*) FROM time_slot WHERE id = ANY($2) AND doctor_id = $1 AND opens_at = $3),
            (SELECT count(*) FROM appointment WHERE slot_id = ANY($2) AND created_at < $3)`,
		op.Doctor, ids, op.OpensAt).Scan(&atOpening, &early)
	if err != nil {
		t.Fatal(err)
	}
	if op.OpensAt.IsZero() || len(ids) != slots || atOpening != slots || early != 0 {
		t.Errorf("opening %+v: %d of %d slots open at it, %d booked before it", op, atOpening, slots, early)
	}
}

func logReport(t *testing.T, rep *loadtest.Report) {
	t.Helper()
	var b testWriter
	_ = rep.WriteText(&b)
	t.Log("\n" + string(b))
}

type testWriter []byte

func (w *testWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

// TestFairnessScenarioReportsBothClasses runs the fairness scenario shrunk
// (two waves of 6 openings of 2 places, each wanted by 3 one-click patients
// and 3 bots of 4 connections; the one-click patients name both times of
// the morning, as the page does): it reports both classes, every place is
// taken, no account holds two, and the ratio's interval is printed, overall
// and after the draw.
func TestFairnessScenarioReportsBothClasses(t *testing.T) {
	sys, dbURL := startSystem(t, nil)
	rep, err := scenario.RunFairness(t.Context(), scenario.FairnessOptions{
		GatewayURL: sys.Gateway.URL(), DatabaseURL: dbURL, Seed: 7, Zone: berlin, Waves: 2, WaveGap: 2 * time.Second,
		Doctors: 6, Slots: 2, Patients: 3, Bots: 3, BotConns: 4, OpensIn: 4 * time.Second, Until: 4 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	rep.WriteText(&buf)
	t.Log("\n" + buf.String())
	won := 0
	for _, c := range rep.Classes[:2] { // the rest split them
		won += c.Winners
		if c.Requests == 0 || c.Accounts != 2*6*3 {
			t.Errorf("%s: %d accounts sent %d requests, want %d accounts sending", c.Name, c.Accounts, c.Requests, 2*6*3)
		}
	}
	if won != rep.Places || rep.Places != 2*6*2 || rep.Doubles != 0 {
		t.Errorf("%d accounts booked %d places, %d hold two: want every place taken, each by its own account", won, rep.Places, rep.Doubles)
	}
	for _, want := range []string{"one-click / bot win rate", "  after the draw: "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the report does not give %q", want)
		}
	}
}
