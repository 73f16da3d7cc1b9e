package report_test

import (
	"math"
	"testing"

	"termin/loadtest/report"
)

func class(accounts, winners int) report.Class {
	return report.Class{Accounts: accounts, Winners: winners}
}

func TestRatioAndItsInterval(t *testing.T) {
	for _, c := range []struct {
		name          string
		a, b          report.Class
		ratio, lo, hi float64
		ok            bool
		verdict       string
	}{
		{"equal, many accounts", class(9600, 4800), class(9600, 4800), 1, 0.9725, 1.0283, true, "PASS"},
		{"a bot's edge", class(1200, 521), class(1200, 677), 0.7696, 0.7093, 0.8349, true, "FAIL (outside ±10 %: bots ahead)"},
		{"equal, too few to tell", class(400, 100), class(400, 100), 1, 0.7866, 1.2713, true, "FAIL (the interval is wider than ±10 %: more accounts, or more waves, are needed to tell)"},
		{"one-click patients ahead", class(9600, 6000), class(9600, 4000), 1.5, 1.4582, 1.5430, true, "FAIL (outside ±10 %: one-click patients ahead)"},
		{"no bot won", class(100, 10), class(100, 0), 0, 0, math.Inf(1), false, "FAIL (not defined: a class with no winner or only winners)"},
		{"everyone won", class(100, 100), class(100, 100), 1, 0, math.Inf(1), false, "FAIL (not defined: a class with no winner or only winners)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lo, hi, ok := report.RatioCI(c.a, c.b)
			near := func(x, y float64) bool { return math.IsInf(y, 1) && math.IsInf(x, 1) || math.Abs(x-y) < 5e-4 }
			if r := report.Ratio(c.a, c.b); c.ok && !near(r, c.ratio) {
				t.Errorf("ratio = %.4f, want %.4f", r, c.ratio)
			}
			if ok != c.ok || ok && (!near(lo, c.lo) || !near(hi, c.hi)) {
				t.Errorf("interval = %.4f – %.4f (%v), want %.4f – %.4f (%v)", lo, hi, ok, c.lo, c.hi, c.ok)
			}
			if v := report.Verdict(lo, hi, ok); v != c.verdict {
				t.Errorf("verdict = %q, want %q", v, c.verdict)
			}
		})
	}
}

func TestFairNeedsBothIntervalsAndNoDoubles(t *testing.T) {
	even := []report.Class{class(9600, 4800), class(9600, 4800)}
	for _, c := range []struct {
		name      string
		afterDraw [2]report.Class
		doubles   int
		want      bool
	}{
		{"both within the band", [2]report.Class{class(8000, 4000), class(8000, 4000)}, 0, true},
		{"the bots' edge after the draw", [2]report.Class{class(8000, 3400), class(8000, 4400)}, 0, false},
		{"too few after the draw to tell", [2]report.Class{class(300, 150), class(300, 150)}, 0, false},
		{"an account with two places", [2]report.Class{class(8000, 4000), class(8000, 4000)}, 1, false},
	} {
		rep := report.Fairness{Classes: even, AfterDraw: c.afterDraw, Doubles: c.doubles}
		if got := rep.Fair(); got != c.want {
			t.Errorf("%s: Fair() = %v, want %v", c.name, got, c.want)
		}
	}
}
