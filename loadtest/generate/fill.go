package generate

import (
	"slices"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Fill adds the engine's statistics and clicks to the report: the attacks,
// the answers and decisions with their latencies, the histogram, the errors
// and the per-second series.
func (e *Engine) Fill(r *loadtest.Report) { addStats(r, e.opts, e.stats, e.ledger.snapshot()) }

// addStats fills the report from the engine's statistics and clicks.
func addStats(r *loadtest.Report, o loadtest.Options, s *stats, clicks []click) {
	offered := map[string]float64{"clicks": o.Rate, "reads": max(o.ReadsRate, 0), "searches": max(o.ReadsRate, 0) * o.SearchShare}
	for _, name := range []string{"clicks", "repeats", "reads", "searches"} {
		if m := s.attacks[name]; m != nil {
			r.Attacks = append(r.Attacks, attackLine(name, offered[name], m))
		}
	}
	for _, key := range sortedKeys(s.codes) {
		m := s.codes[key]
		m.Close()
		r.Answers = append(r.Answers, latencyLine(key, int(m.Requests), m.Latencies))
	}
	for key, a := range s.methods {
		r.Answers = append(r.Answers, latencyLine(key, a.n, a.lat))
	}
	kinds := s.attacks["searches"] != nil || s.attacks[BurstReads] != nil
	for _, name := range []string{"reads", "searches", BurstReads} { // every read, then kinds of them
		if m := s.attacks[name]; m != nil && kinds {
			r.Answers = append(r.Answers, latencyLine("GET "+name, int(m.Requests), m.Latencies))
		}
	}
	slices.SortStableFunc(r.Answers, func(a, b loadtest.LatencyLine) int { return strings.Compare(a.Key, b.Key) })
	count := map[string]int{}
	for _, c := range clicks {
		count[c.outcome()]++
	}
	for _, key := range sortedKeys(s.decision) {
		r.Decisions = append(r.Decisions, latencyLine(key, count[key], *s.decision[key]))
	}
	if n := count["unfinished"]; n > 0 {
		r.Decisions = append(r.Decisions, loadtest.LatencyLine{Key: "unfinished", Count: n})
	}
	for i := range s.hist.Buckets {
		from, to := s.hist.Buckets.Nth(i)
		r.Histogram = append(r.Histogram, loadtest.BucketLine{From: from, To: to, Count: s.hist.Counts[i]})
	}
	r.Errors = s.errors
	r.Series = series(s)
}

func attackLine(name string, offered float64, m *vegeta.Metrics) loadtest.AttackLine {
	m.Close()
	errs := m.StatusCodes["0"]
	answered := m.Requests - uint64(errs)
	span := (m.Duration + m.Wait).Seconds()
	l := loadtest.AttackLine{Name: name, OfferedPerSec: offered, Sent: m.Requests, SentPerSec: m.Rate, Answered: answered, Errors: errs}
	if span > 0 {
		l.AnsweredPerSec = float64(answered) / span
	}
	return l
}

func latencyLine(key string, n int, l vegeta.LatencyMetrics) loadtest.LatencyLine {
	return loadtest.LatencyLine{Key: key, Count: n, P50: ms(l.Quantile(0.5)), P90: ms(l.Quantile(0.9)),
		P99: ms(l.Quantile(0.99)), P999: ms(l.Quantile(0.999)), Max: ms(l.Max)}
}

func series(s *stats) []loadtest.SecondLine {
	out := make([]loadtest.SecondLine, len(s.secs))
	for i, sec := range s.secs {
		out[i] = loadtest.SecondLine{Second: i, Offered: sec.offered, Sent: sec.sent, Answered: sec.answered, Booked: sec.booked,
			SentClicks: sec.sentBy["clicks"], SentRepeats: sec.sentBy["repeats"], SentReads: sec.sentBy["reads"]}
		if sec.lat.Max > 0 {
			out[i].P50, out[i].P90, out[i].P99 = ms(sec.lat.Quantile(0.5)), ms(sec.lat.Quantile(0.9)), ms(sec.lat.Quantile(0.99))
		}
	}
	return out
}
