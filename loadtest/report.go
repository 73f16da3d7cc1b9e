package loadtest

import (
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
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
	Opening   []LatencyLine  `json:"openingDecisions,omitempty"`
	Histogram []BucketLine   `json:"bookingLatencyHistogram"`
	Errors    map[string]int `json:"errors"`
	Metrics   []MetricDelta  `json:"metrics"`
	Notes     []string       `json:"notes,omitempty"`
	Knee      *Knee          `json:"knee,omitempty"`
	CPU       *CPUReport     `json:"cpu,omitempty"`
	Morning   *Morning       `json:"morning,omitempty"`
	Compare   *Comparison    `json:"compare,omitempty"`
	Series    []SecondLine   `json:"series"`
	Checks    []Check        `json:"checks"`
	Passed    bool           `json:"passed"`
	Dir       string         `json:"dir"`
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

func newReport(o Options, p *prepared) *Report {
	r := &Report{Scenario: o.Scenario, Seed: o.Seed, Gateway: o.GatewayURL, Started: time.Now().UTC(),
		Settings: settings(o), Seeded: Seeded{Slots: len(p.slots), TookMS: ms(p.seedTook)}, Dir: o.OutDir}
	if o.Scenario == ScenarioOpeningAll {
		r.Morning = newMorning(o, p)
	}
	return r
}

func settings(o Options) Settings {
	return Settings{Rate: o.Rate, ReadsRate: max(o.ReadsRate, 0), Duration: o.Duration.String(),
		Patients: o.Patients, Impatient: o.Impatient, FollowUp: o.FollowUp.String(), MetricsFrom: o.BookerMetricsURL}
}

// addStats fills the report from the engine's statistics and clicks.
func (r *Report) addStats(o Options, s *stats, clicks []click) {
	offered := map[string]float64{"clicks": o.Rate, "reads": max(o.ReadsRate, 0)}
	for _, name := range []string{"clicks", "repeats", "reads"} {
		if m := s.attacks[name]; m != nil {
			r.Attacks = append(r.Attacks, attackLine(name, offered[name], m))
		}
	}
	for _, key := range sortedKeys(s.codes) {
		m := s.codes[key]
		m.Close()
		r.Answers = append(r.Answers, latencyLine(key, int(m.Requests), m.Latencies))
	}
	count := map[string]int{}
	for _, c := range clicks {
		count[c.outcome()]++
	}
	for _, key := range sortedKeys(s.decision) {
		r.Decisions = append(r.Decisions, latencyLine(key, count[key], *s.decision[key]))
	}
	if n := count["unfinished"]; n > 0 {
		r.Decisions = append(r.Decisions, LatencyLine{Key: "unfinished", Count: n})
	}
	for i := range s.hist.Buckets {
		from, to := s.hist.Buckets.Nth(i)
		r.Histogram = append(r.Histogram, BucketLine{From: from, To: to, Count: s.hist.Counts[i]})
	}
	r.Errors = s.errors
	r.Series = series(s)
}

func attackLine(name string, offered float64, m *vegeta.Metrics) AttackLine {
	m.Close()
	errs := m.StatusCodes["0"]
	answered := m.Requests - uint64(errs)
	span := (m.Duration + m.Wait).Seconds()
	l := AttackLine{Name: name, OfferedPerSec: offered, Sent: m.Requests, SentPerSec: m.Rate, Answered: answered, Errors: errs}
	if span > 0 {
		l.AnsweredPerSec = float64(answered) / span
	}
	return l
}

func latencyLine(key string, n int, l vegeta.LatencyMetrics) LatencyLine {
	return LatencyLine{Key: key, Count: n, P50: ms(l.Quantile(0.5)), P90: ms(l.Quantile(0.9)),
		P99: ms(l.Quantile(0.99)), P999: ms(l.Quantile(0.999)), Max: ms(l.Max)}
}

func series(s *stats) []SecondLine {
	out := make([]SecondLine, len(s.secs))
	for i, sec := range s.secs {
		out[i] = SecondLine{Second: i, Offered: sec.offered, Sent: sec.sent, Answered: sec.answered, Booked: sec.booked,
			SentClicks: sec.sentBy["clicks"], SentRepeats: sec.sentBy["repeats"], SentReads: sec.sentBy["reads"]}
		if sec.lat.Max > 0 {
			out[i].P50, out[i].P90, out[i].P99 = ms(sec.lat.Quantile(0.5)), ms(sec.lat.Quantile(0.9)), ms(sec.lat.Quantile(0.99))
		}
	}
	return out
}

// passed reports whether every check held, and records it.
func (r *Report) passed() bool {
	r.Passed = len(r.Checks) > 0
	for _, c := range r.Checks {
		r.Passed = r.Passed && c.OK
	}
	return r.Passed
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fmtMS(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
