package budget

import (
	"time"

	"termin/loadtest"
	"termin/loadtest/report"
)

// answers is the p99 of the ANSWERS line key ("POST all", "GET all").
func answers(key string) func(*report.Report) (float64, bool) {
	return func(r *report.Report) (float64, bool) { return p99(r.Answers, key) }
}

func openingFirstSecond(r *report.Report) (float64, bool) {
	return p99(r.Opening, "every decided click, first second")
}

func morningDecisions(r *report.Report) (float64, bool) {
	if r.Morning == nil {
		return 0, false
	}
	return p99(r.Morning.Decisions, "every decided click")
}

// p99 is the p99 of lines' key, when it counts any.
func p99(lines []report.LatencyLine, key string) (float64, bool) {
	for _, l := range lines {
		if l.Key == key && l.Count > 0 {
			return l.P99, true
		}
	}
	return 0, false
}

// cpuPerBooking is the CPU of every measured process but the load
// generator, which shares the machine's cores, per confirmed booking.
func cpuPerBooking(r *report.Report) (float64, bool) {
	if r.CPU == nil || r.CPU.Error != "" || r.CPU.Confirmed == 0 {
		return 0, false
	}
	total, found := 0.0, false
	for _, l := range r.CPU.Processes {
		if l.Found && l.Process != loadtest.LabelGenerator {
			total += l.USPerBooking
			found = true
		}
	}
	return total, found
}

// backlogCleared is how many seconds after the last new click the last
// click was decided: the second after the last one with clicks waiting,
// less the run's duration.
func backlogCleared(r *report.Report) (float64, bool) {
	dur, err := time.ParseDuration(r.Settings.Duration)
	if r.Morning == nil || len(r.Morning.Seconds) == 0 || err != nil {
		return 0, false
	}
	cleared := 0
	for _, s := range r.Morning.Seconds {
		if s.Backlog > 0 {
			cleared = s.Second + 1
		}
	}
	return max(float64(cleared)-dur.Seconds(), 0), true
}

func kneeRatio(r *report.Report) (float64, bool) {
	if r.Compare == nil || r.Compare.Ratio == 0 {
		return 0, false
	}
	return r.Compare.Ratio, true
}

func knee(r *report.Report) (float64, bool) {
	if r.Knee == nil || r.Knee.Confirmed == 0 {
		return 0, false
	}
	return r.Knee.Confirmed, true
}

func closedRatio(r *report.Report) (float64, bool) {
	if r.Closed == nil || r.Closed.Ratio == 0 {
		return 0, false
	}
	return r.Closed.Ratio, true
}

func morningP50(r *report.Report) (float64, bool) {
	if r.Morning == nil {
		return 0, false
	}
	for _, l := range r.Morning.Decisions {
		if l.Key == "every decided click" && l.Count > 0 {
			return l.P50, true
		}
	}
	return 0, false
}

func seedRatio(r *report.Report) (float64, bool) {
	if r.AgainstSeed == nil || r.AgainstSeed.Ratio == 0 {
		return 0, false
	}
	return r.AgainstSeed.Ratio, true
}

// laterSeconds is the highest booking answers' p99 of the seconds after
// the first in which clicks were sent, within the run's duration: the
// opening's first second has a budget of its own.
func laterSeconds(r *report.Report) (float64, bool) {
	dur, err := time.ParseDuration(r.Settings.Duration)
	if err != nil {
		return 0, false
	}
	worst, found := 0.0, false
	for _, s := range r.Series {
		if s.Second >= 1 && float64(s.Second) < dur.Seconds() && s.SentClicks > 0 {
			worst, found = max(worst, s.P99), true
		}
	}
	return worst, found
}
