// Package budget holds the figures each scenario of the load test is held
// to, and judges a run by them. It is the one source of the budgets: the
// load test prints each beside the invariants, met or missed (-strict fails
// the run on a missed one), and the performance page's budget table is
// written from Table (a test keeps the two equal). An invariant is what must
// never break, whatever the machine; a budget is how fast or cheap the
// system should be, which a busy shared machine may miss.
package budget

import (
	"fmt"
	"strconv"
	"strings"

	"termin/loadtest"
	"termin/loadtest/report"
)

// Budget is one figure of a scenario and its bound.
type Budget struct {
	Scenario string
	// Figure names what is measured, as the report shows it.
	Figure string
	// Limit bounds the figure: from above when AtMost, else from below.
	Limit  float64
	AtMost bool
	Unit   string
	// measure reads the figure from a run's report; ok is false when the
	// run has none (no CPU read, no answer of that kind).
	measure func(r *report.Report) (v float64, ok bool)
}

// Table is every budget, by scenario. A scenario without one (day) is held
// to its invariants alone; fairness is judged by its own intervals (the
// one-click / bot win ratio's, overall and after the draw, each within
// 0.9–1.1: report.Fairness.Fair).
var Table = []Budget{
	{loadtest.ScenarioOpening, "booking answers p99, every status (ANSWERS: POST all)", 50, true, "ms", answers("POST all")},
	{loadtest.ScenarioOpening, "slot-list reads p99 (ANSWERS: GET all)", 20, true, "ms", answers("GET all")},
	{loadtest.ScenarioOpening, "the opening's first second: click to final answer p99", 100, true, "ms", openingFirstSecond},
	{loadtest.ScenarioOpening, "booking answers p99 of the worst second after the first, by second of sending", 50, true, "ms", laterSeconds},
	{loadtest.ScenarioOpeningAll, "CPU per confirmed booking, every process measured but the load generator", 500, true, "µs", cpuPerBooking},
	{loadtest.ScenarioOpeningAll, "click to final answer p99", 500, true, "ms", morningDecisions},
	{loadtest.ScenarioOpeningAll, "every click decided, seconds after the last click", 10, true, "s", backlogCleared},
	{loadtest.ScenarioOpeningAll, "click to final answer p50", 25, true, "ms", morningP50},
	{loadtest.ScenarioOpeningAll, "CPU per confirmed booking over the seed design's, same run (-against-seed)", 0.35, true, "×", seedRatio},
	{loadtest.ScenarioHotslotCompare, "confirmed bookings/s at the knee, whole path over the seed's design", 5, false, "×", kneeRatio},
	{loadtest.ScenarioSustained, "confirmed bookings/s at the knee", 10_000, false, "/s", knee},
	{loadtest.ScenarioHotslotClosed, "confirmed bookings/s in a closed loop, each at its best concurrency, whole path over the seed's design", 3, false, "×", closedRatio},
}

// For is the scenario's budgets, in the table's order.
func For(scenario string) []Budget {
	var out []Budget
	for _, b := range Table {
		if b.Scenario == scenario {
			out = append(out, b)
		}
	}
	return out
}

// LimitText is the bound as people read it: "≤ 50 ms", "≥ 5 ×".
func (b Budget) LimitText() string {
	op := "≥"
	if b.AtMost {
		op = "≤"
	}
	return op + " " + number(b.Limit) + " " + b.Unit
}

// Judge measures the report's scenario's budgets and records each in
// r.Budgets.
func Judge(r *report.Report) {
	r.Budgets = nil
	for _, b := range For(r.Scenario) {
		line := report.BudgetLine{Budget: b.Figure, Limit: b.LimitText(), Unit: b.Unit}
		line.Value, line.Measured = b.measure(r)
		line.Met = line.Measured && (b.AtMost && line.Value <= b.Limit || !b.AtMost && line.Value >= b.Limit)
		r.Budgets = append(r.Budgets, line)
	}
}

// Missed lists the budgets the report missed or could not measure.
func Missed(r *report.Report) []string {
	var out []string
	for _, l := range r.Budgets {
		if !l.Met {
			out = append(out, fmt.Sprintf("%s: %s, want %s", l.Budget, l.ValueText(), l.Limit))
		}
	}
	return out
}

// Markdown is the performance page's budget table.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| scenario | figure | budget |\n|---|---|---|\n")
	for _, bu := range Table {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", bu.Scenario, bu.Figure, bu.LimitText())
	}
	return b.String()
}

func number(v float64) string {
	if v != float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', -1, 64) // a ratio: 0.35
	}
	s := fmt.Sprintf("%.0f", v)
	if len(s) > 4 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}
