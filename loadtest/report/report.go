// Package report is what a load run found, and how it is shown: the data
// (offered and achieved rates, latencies per outcome, the system's own
// counters, CPU per booking, the invariant checks) and its renderings, a
// text report, report.json and a chart of the run over time. The load test
// fills it; this package only holds and shows it.
package report

import (
	"strconv"
	"time"

	"termin/loadtest/checks"
)

// Report is everything a run found: what was offered and achieved, the
// latencies per outcome, what the system counted, and the invariants.
type Report struct {
	Scenario  string        `json:"scenario"`
	Seed      int64         `json:"seed"`
	Gateway   string        `json:"gateway"`
	Started   time.Time     `json:"started"`
	Settings  Settings      `json:"settings"`
	Seeded    Seeded        `json:"seeded"`
	Attacks   []AttackLine  `json:"attacks"`
	Answers   []LatencyLine `json:"answers"`
	Decisions []LatencyLine `json:"decisions"`
	// Opening is the time to a decision over the run and for the clicks of
	// its first second alone, when the clicks begin at an opening: the
	// first second is the product, and a whole run's figures hide it.
	Opening   []LatencyLine     `json:"openingDecisions,omitempty"`
	Histogram []BucketLine      `json:"bookingLatencyHistogram"`
	Errors    map[string]int    `json:"errors"`
	Metrics   []MetricDelta     `json:"metrics"`
	Notes     []string          `json:"notes,omitempty"`
	Knee      *Knee             `json:"knee,omitempty"`
	CPU       *CPUReport        `json:"cpu,omitempty"`
	Morning   *Morning          `json:"morning,omitempty"`
	Compare   *Comparison       `json:"compare,omitempty"`
	Closed    *ClosedComparison `json:"closedLoop,omitempty"`
	// AgainstSeed is the same load against the seed's design, when the
	// run was asked for it.
	AgainstSeed *SeedComparison `json:"againstSeed,omitempty"`
	Series      []SecondLine    `json:"series"`
	Checks      []checks.Check  `json:"checks"`
	Passed      bool            `json:"passed"`
	// Budgets are the scenario's budgets (package budget) and how the run
	// did against each; a missed one fails only a -strict run.
	Budgets []BudgetLine `json:"budgets,omitempty"`
	Dir     string       `json:"dir"`
}

// Settings are the options that shaped the load.
type Settings struct {
	Rate        float64 `json:"clicksPerSecond"`
	ReadsRate   float64 `json:"readsPerSecond"`
	Duration    string  `json:"duration"`
	Patients    int     `json:"patients"`
	Impatient   float64 `json:"impatientShare"`
	FollowUp    string  `json:"followUp"`
	MetricsFrom string  `json:"bookerMetrics"`
}

// Seeded says how many slot rows the run wrote, and how fast.
type Seeded struct {
	Slots  int     `json:"slots"`
	TookMS float64 `json:"tookMs"`
}

// AttackLine is one of the three request streams: offered vs achieved.
type AttackLine struct {
	Name           string  `json:"name"`
	OfferedPerSec  float64 `json:"offeredPerSecond"`
	Sent           uint64  `json:"sent"`
	SentPerSec     float64 `json:"sentPerSecond"`
	Answered       uint64  `json:"answered"`
	AnsweredPerSec float64 `json:"answeredPerSecond"`
	Errors         int     `json:"errors"`
}

// LatencyLine is a latency distribution in milliseconds.
type LatencyLine struct {
	Key   string  `json:"key"`
	Count int     `json:"count"`
	P50   float64 `json:"p50Ms"`
	P90   float64 `json:"p90Ms"`
	P99   float64 `json:"p99Ms"`
	P999  float64 `json:"p999Ms"`
	Max   float64 `json:"maxMs"`
}

// BucketLine is one bucket of vegeta's booking latency histogram.
type BucketLine struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count uint64 `json:"count"`
}

// SecondLine is one second of the run, for the chart. Sent counts every
// request sent in the second: the new clicks, their repeats with the same
// key, and the slot-list reads, which it also counts apart.
type SecondLine struct {
	Second      int     `json:"second"`
	Offered     float64 `json:"offeredPerSecond"`
	Sent        int     `json:"sent"`
	SentClicks  int     `json:"sentClicks"`
	SentRepeats int     `json:"sentRepeats"`
	SentReads   int     `json:"sentReads"`
	Answered    int     `json:"answered"`
	Booked      int     `json:"booked"`
	P50         float64 `json:"p50Ms"`
	P90         float64 `json:"p90Ms"`
	P99         float64 `json:"p99Ms"`
}

// Held reports whether every check held, and records it in Passed.
func (r *Report) Held() bool {
	r.Passed = len(r.Checks) > 0
	for _, c := range r.Checks {
		r.Passed = r.Passed && c.OK
	}
	return r.Passed
}

func fmtMS(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
