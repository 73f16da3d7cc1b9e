package scenario_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"termin/loadtest/scenario"
)

func class(accounts, winners int) scenario.ClassResult {
	return scenario.ClassResult{Accounts: accounts, Winners: winners}
}

func TestRatioAndItsInterval(t *testing.T) {
	for _, c := range []struct {
		name          string
		a, b          scenario.ClassResult
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
			lo, hi, ok := scenario.RatioCI(c.a, c.b)
			near := func(x, y float64) bool { return math.IsInf(y, 1) && math.IsInf(x, 1) || math.Abs(x-y) < 5e-4 }
			if r := scenario.Ratio(c.a, c.b); c.ok && !near(r, c.ratio) {
				t.Errorf("ratio = %.4f, want %.4f", r, c.ratio)
			}
			if ok != c.ok || ok && (!near(lo, c.lo) || !near(hi, c.hi)) {
				t.Errorf("interval = %.4f – %.4f (%v), want %.4f – %.4f (%v)", lo, hi, ok, c.lo, c.hi, c.ok)
			}
			if v := scenario.Verdict(lo, hi, ok); v != c.verdict {
				t.Errorf("verdict = %q, want %q", v, c.verdict)
			}
		})
	}
}

func TestPlacesLeftByTheDraw(t *testing.T) {
	slots := []int64{1, 2, 3}
	for _, c := range []struct {
		name     string
		accounts []scenario.FairAccount
		want     []int
	}{
		{"every slot picked before the opening", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 1}, {Early: true, Bot: true, Slots: slots, Pick: 2}, {Early: true, Slots: slots, Pick: 3},
		}, []int{0}},
		{"a slot picked only after the opening is left", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 1}, {Early: true, Bot: true, Slots: slots, Pick: 2}, {Slots: slots, Pick: 3},
		}, []int{1}},
		{"two picks of one slot leave the others", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 2}, {Early: true, Bot: true, Slots: slots, Pick: 2},
		}, []int{2}},
		{"openings counted apart", []scenario.FairAccount{
			{Early: true, Slots: slots, Pick: 1}, {Opening: 1, Early: true, Slots: []int64{4}, Pick: 4},
		}, []int{2, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := scenario.PlacesLeft(c.accounts, len(c.want)); !slices.Equal(got, c.want) {
				t.Errorf("places left = %v, want %v", got, c.want)
			}
		})
	}
}

// TestReportCountsAfterTheDraw: only the accounts of openings that leave
// places count after the draw, each class apart.
func TestReportCountsAfterTheDraw(t *testing.T) {
	full, left := []int64{1, 2}, []int64{3, 4}
	accounts := []scenario.FairAccount{
		{Patient: 10, Early: true, Slots: full, Pick: 1}, {Patient: 11, Bot: true, Early: true, Slots: full, Pick: 2},
		{Patient: 12, Opening: 1, Early: true, Slots: left, Pick: 3}, {Patient: 13, Opening: 1, Bot: true, Slots: left, Pick: 4},
		{Patient: 14, Opening: 1, Bot: true, Early: true, Slots: left, Pick: 3},
	}
	rep := scenario.FairReport(accounts, 2, map[int64]int{10: 1, 11: 1, 12: 1, 13: 1}, 4)
	for _, c := range []struct {
		name              string
		got               scenario.ClassResult
		accounts, winners int
	}{
		{"one-click patients", rep.Classes[0], 2, 2},
		{"bot accounts", rep.Classes[1], 3, 2},
		{"one-click after the draw", rep.AfterDraw[0], 1, 1},
		{"bots after the draw", rep.AfterDraw[1], 2, 1},
	} {
		if c.got.Accounts != c.accounts || c.got.Winners != c.winners {
			t.Errorf("%s: %d of %d won, want %d of %d", c.name, c.got.Winners, c.got.Accounts, c.winners, c.accounts)
		}
	}
	if rep.LeftOpenings != 1 || rep.LeftPlaces != 1 {
		t.Errorf("%d openings leave %d places, want 1 leaving 1", rep.LeftOpenings, rep.LeftPlaces)
	}
	var b strings.Builder
	rep.WriteText(&b)
	for _, want := range []string{"after the draw: 1 of 2 openings leave 1 places", "one-click / bot win rate: ", "  after the draw: "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestFairNeedsBothIntervalsAndNoDoubles(t *testing.T) {
	even := []scenario.ClassResult{class(9600, 4800), class(9600, 4800)}
	for _, c := range []struct {
		name      string
		afterDraw [2]scenario.ClassResult
		doubles   int
		want      bool
	}{
		{"both within the band", [2]scenario.ClassResult{class(8000, 4000), class(8000, 4000)}, 0, true},
		{"the bots' edge after the draw", [2]scenario.ClassResult{class(8000, 3400), class(8000, 4400)}, 0, false},
		{"too few after the draw to tell", [2]scenario.ClassResult{class(300, 150), class(300, 150)}, 0, false},
		{"an account with two places", [2]scenario.ClassResult{class(8000, 4000), class(8000, 4000)}, 1, false},
	} {
		rep := scenario.FairnessReport{Classes: even, AfterDraw: c.afterDraw, Doubles: c.doubles}
		if got := rep.Fair(); got != c.want {
			t.Errorf("%s: Fair() = %v, want %v", c.name, got, c.want)
		}
	}
}
