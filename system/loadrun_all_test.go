package system_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"termin/loadtest"
	"termin/loadtest/scenario"
)

// postgresOnly measures the PostgreSQL server's processes beside the load
// generator: in these tests the whole system runs in the test process, so
// its CPU is the generator line's.
var postgresOnly = []loadtest.ProcessGroup{{Label: loadtest.LabelPostgres, Match: []string{"postgres"}}}

func TestOpeningAllReportsCPUPerBooking(t *testing.T) {
	sys, dbURL := startSystem(t, nil)
	rep, err := scenario.Run(t.Context(), loadtest.Options{
		Scenario: loadtest.ScenarioOpeningAll, GatewayURL: sys.Gateway.URL(),
		BookerMetricsURL: "http://" + sys.Booker.Addr() + "/metrics", DatabaseURL: dbURL,
		Rate: 150, Duration: 2 * time.Second, AllDoctors: 40, AllSlots: 8, GroupShare: 0.25, GroupCapacity: 3,
		OpensIn: 3 * time.Second, Skew: loadtest.SkewZipf, FollowUp: 20 * time.Second, SettleTimeout: 30 * time.Second,
		Processes: postgresOnly, OutDir: t.TempDir(), Seed: 4242, Zone: berlin,
	})
	if rep != nil {
		logReport(t, rep)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	m, c := rep.Morning, rep.CPU
	if m == nil || c == nil {
		t.Fatalf("report without the opening-all section (%v) or the CPU table (%v)", m != nil, c != nil)
	}
	if m.Places != 40*(6+2*3) || m.Confirmed == 0 || m.Confirmed != c.Confirmed {
		t.Errorf("places %d (want %d), confirmed %d by second, %d in the CPU table", m.Places, 40*12, m.Confirmed, c.Confirmed)
	}
	sampled := false
	for _, s := range m.Seconds {
		sampled = sampled || s.QueuePending >= 0
	}
	if len(m.Seconds) < 2 || !sampled {
		t.Errorf("%d seconds of backlog, booker queue sampled: %v", len(m.Seconds), sampled)
	}
	if len(m.Decisions) != 4 || m.Decisions[0].Count == 0 || m.Decisions[1].Count == 0 || m.Decisions[0].P99 <= 0 {
		t.Errorf("decision latency lines: %+v", m.Decisions)
	}
	for _, label := range []string{loadtest.LabelGenerator, loadtest.LabelPostgres} {
		if l := cpuLine(c, label); l == nil || !l.Found || l.Seconds <= 0 || l.USPerBooking <= 0 || len(l.PIDs) == 0 {
			t.Errorf("CPU line %q: %+v", label, l)
		}
	}
	if c.TotalUSPerBooking <= 0 || c.WindowSeconds < 2 || len(c.PostgresBackends) != 2 || len(c.Prometheus) != 2 {
		t.Errorf("CPU total %.0f us/booking over %.1f s, PostgreSQL split %d lines, cross-check %d lines",
			c.TotalUSPerBooking, c.WindowSeconds, len(c.PostgresBackends), len(c.Prometheus))
	}
	var txt bytes.Buffer
	_ = rep.WriteText(&txt)
	for _, want := range []string{"CPU PER CONFIRMED BOOKING", "SECONDS AFTER THE OPENING", "booked, first second"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("report text lacks %q", want)
		}
	}
}

func TestHotslotCompareRunsBothPaths(t *testing.T) {
	sys, dbURL := startSystem(t, nil)
	rep, err := scenario.Run(t.Context(), loadtest.Options{
		Scenario: loadtest.ScenarioHotslotCompare, GatewayURL: sys.Gateway.URL(),
		BookerMetricsURL: "http://" + sys.Booker.Addr() + "/metrics", DatabaseURL: dbURL,
		Rate: 60, RampStep: 60, StepDuration: time.Second, Duration: 2 * time.Second, HugeCapacity: 10_000,
		BaselineConns: 4, FollowUp: 20 * time.Second, SettleTimeout: 30 * time.Second,
		Processes: postgresOnly, OutDir: t.TempDir(), Seed: 777, Zone: berlin,
	})
	if rep != nil {
		logReport(t, rep)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	c := rep.Compare
	if c == nil {
		t.Fatal("no comparison in the report")
	}
	for _, leg := range []loadtest.CompareLeg{c.Whole, c.Baseline} {
		if len(leg.Knee.Steps) == 0 || leg.Knee.Confirmed <= 0 || leg.CPU.Confirmed == 0 || !leg.Passed {
			t.Errorf("%s: knee %+v, %d confirmed, passed %v", leg.Target, leg.Knee, leg.CPU.Confirmed, leg.Passed)
		}
	}
	if c.Ratio <= 0 || cpuLine(c.Baseline.CPU, loadtest.LabelBaselineProcess) == nil {
		t.Errorf("ratio %.2f; baseline CPU lines %+v", c.Ratio, c.Baseline.CPU.Processes)
	}
	legs := map[string]int{}
	for _, ch := range rep.Checks {
		legs[strings.SplitN(ch.Name, ":", 2)[0]]++
	}
	if legs["whole path"] == 0 || legs["seed baseline"] == 0 || !rep.Passed {
		t.Errorf("checks per leg %v, passed %v", legs, rep.Passed)
	}
}

func cpuLine(c *loadtest.CPUReport, label string) *loadtest.CPULine {
	for i := range c.Processes {
		if c.Processes[i].Process == label {
			return &c.Processes[i]
		}
	}
	return nil
}
