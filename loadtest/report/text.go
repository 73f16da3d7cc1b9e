package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteText prints the report as people read it: rates, latencies per
// outcome, time to decision, the system's own counters and the invariants.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if r.Compare != nil {
		r.writeCompare(tw)
		return tw.Flush()
	}
	if r.Closed != nil {
		r.writeClosed(tw)
		return tw.Flush()
	}
	fmt.Fprintf(tw, "termin load test: scenario %s, seed %d, gateway %s, started %s\n",
		r.Scenario, r.Seed, r.Gateway, r.Started.Format("2006-01-02 15:04:05Z"))
	s := r.Settings
	fmt.Fprintf(tw, "new clicks %.0f/s for %s, reads %.0f/s, %d patients, %.0f%% impatient, follow-up up to %s\n",
		s.Rate, s.Duration, s.ReadsRate, s.Patients, 100*s.Impatient, s.FollowUp)
	fmt.Fprintf(tw, "seeded %d slots in %.0f ms\n", r.Seeded.Slots, r.Seeded.TookMS)
	section(tw, "RATES (each stream apart: no line adds them up)", "stream\toffered/s\tsent\tsent/s\tanswered\tanswered/s\tno answer")
	for _, a := range r.Attacks {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%d\t%.1f\t%d\n", streamText(a.Name), offeredText(a.OfferedPerSec),
			a.Sent, a.SentPerSec, a.Answered, a.AnsweredPerSec, a.Errors)
	}
	latencies(tw, "ANSWERS BY CODE (latency from the scheduled send time, ms)", r.Answers)
	latencies(tw, "TIME TO FINAL DECISION PER CLICK (from its first scheduled send, repeats included, ms)", r.Decisions)
	if len(r.Opening) > 0 {
		latencies(tw, "THE OPENING'S FIRST SECOND (from a click's first scheduled send to its final answer, repeats included, ms)", r.Opening)
	}
	r.writeMorning(tw)
	r.writeExtras(tw)
	writeCPU(tw, r.CPU)
	r.writeChecks(tw)
	return tw.Flush()
}

// writeChecks prints the budgets, met or missed, the invariants, PASS or
// FAIL, and the result of both.
func (r *Report) writeChecks(tw *tabwriter.Writer) {
	if len(r.Budgets) > 0 {
		section(tw, "BUDGETS (docs/performance.md#budgets; -strict fails the run on a missed one)", "budget\tthis run\tbound\tresult")
		for _, b := range r.Budgets {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", b.Budget, b.ValueText(), b.Limit, b.Result())
		}
	}
	section(tw, "INVARIANTS", "check\tresult\tdetail")
	for _, c := range r.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, passText(c.OK), c.Detail)
	}
	fmt.Fprintf(tw, "\nresult: %s; %s\n", map[bool]string{true: "PASS: every invariant held", false: "FAIL"}[r.Passed], r.budgetsText())
}

// budgetsText counts the budgets met and missed.
func (r *Report) budgetsText() string {
	met := 0
	for _, b := range r.Budgets {
		if b.Met {
			met++
		}
	}
	switch {
	case len(r.Budgets) == 0:
		return "no budgets for this scenario"
	case met == len(r.Budgets):
		return fmt.Sprintf("budgets: all %d met", met)
	}
	return fmt.Sprintf("budgets: %d met, %d MISSED or not measured", met, len(r.Budgets)-met)
}

func (r *Report) writeExtras(tw *tabwriter.Writer) {
	if len(r.Errors) > 0 {
		section(tw, "ERRORS (no answer or 5xx)", "error\tcount")
		for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
			fmt.Fprintf(tw, "%s\t%d\n", k, r.Errors[k])
		}
	}
	if r.Knee != nil {
		section(tw, "SUSTAINED RAMP (confirmed = booked_count growth in the database)", "step\toffered/s\tconfirmed/s")
		for i, st := range r.Knee.Steps {
			fmt.Fprintf(tw, "%d\t%.0f\t%.1f\n", i+1, st.Offered, st.Confirmed)
		}
		found := map[bool]string{true: "knee", false: "no knee within the duration; best"}[r.Knee.Found]
		fmt.Fprintf(tw, "%s: %.1f confirmed bookings/s at %.0f offered/s\n", found, r.Knee.Confirmed, r.Knee.Offered)
	}
	r.writeAgainstSeed(tw)
	section(tw, "SYSTEM METRICS (after - before)", "source\tseries\tbefore\tafter\tdelta")
	for _, m := range r.Metrics {
		fmt.Fprintf(tw, "%s\t%s\t%g\t%g\t%+g\n", m.Source, m.Series, m.Before, m.After, m.Delta)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(tw, "note: %s\n", n)
	}
}

func latencies(tw *tabwriter.Writer, title string, lines []LatencyLine) {
	section(tw, title, "outcome\tcount\tp50\tp90\tp99\tp99.9\tmax")
	for _, l := range lines {
		if l.Key == "unfinished" {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\t-\t-\n", l.Key, l.Count)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", l.Key, l.Count,
			fmtMS(l.P50), fmtMS(l.P90), fmtMS(l.P99), fmtMS(l.P999), fmtMS(l.Max))
	}
}

func section(tw *tabwriter.Writer, title, header string) {
	fmt.Fprintf(tw, "\n%s\n%s\n", title, header)
}

func offeredText(v float64) string {
	if v == 0 {
		return "as asked"
	}
	return fmt.Sprintf("%.0f", v)
}

func passText(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// Save writes report.txt, report.json and chart.png into the report's folder.
func (r *Report) Save() error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	var txt strings.Builder
	if err := r.WriteText(&txt); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "report.txt"), []byte(txt.String()), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "report.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if r.Compare != nil || r.Closed != nil {
		return nil // a comparison's legs chart in their own folders, or not at all
	}
	return writeChart(r, filepath.Join(r.Dir, "chart.png"))
}

// streamText names a stream of requests as the RATES table shows it.
func streamText(name string) string {
	switch name {
	case "clicks":
		return "clicks (new keys)"
	case "repeats":
		return "repeats (same key)"
	case "reads":
		return "reads (slot lists, searches)"
	case "searches":
		return "  of them searches"
	}
	return name
}
