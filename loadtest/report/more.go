package report

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
)

// writeMorning prints the opening-all scenario's decisions and seconds.
func (r *Report) writeMorning(tw *tabwriter.Writer) {
	m := r.Morning
	if m == nil {
		return
	}
	fmt.Fprintf(tw, "\nOPENING-ALL: %d doctors x %d slots (%d places) opened at %s; clicks %s over them; %d bookings confirmed in the database\n",
		m.Doctors, m.SlotsPerDoctor, m.Places, m.Opening.UTC().Format("15:04:05.000Z"), m.Skew, m.Confirmed)
	latencies(tw, "DECISION LATENCY (from a click's scheduled send to its final answer, repeats included, ms)", m.Decisions)
	section(tw, "SECONDS AFTER THE OPENING (confirmed = appointments created in the second, from the database; backlog = clicks sent and not yet finally answered, at the second's end)",
		"second\tconfirmed\tclicks so far\tdecided so far\tbacklog\tbooker_queue_pending")
	for _, s := range m.Seconds {
		q := "-"
		if s.QueuePending >= 0 {
			q = strconv.FormatFloat(s.QueuePending, 'f', 0, 64)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%s\n", s.Second, s.Confirmed, s.Clicks, s.Decided, s.Backlog, q)
	}
}

// writeCPU prints the CPU table: each process, the total, the split of
// PostgreSQL and the Prometheus cross-check.
func writeCPU(tw *tabwriter.Writer, c *CPUReport) {
	if c == nil {
		return
	}
	fmt.Fprintf(tw, "\nCPU PER CONFIRMED BOOKING (/proc utime+stime from before the first click until the system caught up: %.1f s; %d bookings confirmed in the database)\n",
		c.WindowSeconds, c.Confirmed)
	if c.Error != "" {
		fmt.Fprintf(tw, "not measured: %s\n", c.Error)
		return
	}
	fmt.Fprintln(tw, "process\tpids\tCPU s\tcores\tus/booking")
	for _, l := range c.Processes {
		cpuLine(tw, l)
	}
	fmt.Fprintf(tw, "TOTAL\t\t%.2f\t%.2f\t%.0f\n", c.TotalSeconds, c.TotalSeconds/max(c.WindowSeconds, 1e-9), c.TotalUSPerBooking)
	for _, l := range c.PostgresBackends {
		l.Process = "  of which " + l.Process
		cpuLine(tw, l)
	}
	if len(c.PostgresBackends) > 0 {
		fmt.Fprintf(tw, "TOTAL with only this database's backends\t\t\t\t%.0f\n", c.OwnDatabaseUSPerBooking)
	}
	for _, l := range c.Prometheus {
		l.Process = "cross-check: " + l.Process
		cpuLine(tw, l)
	}
	writePerRead(tw, c)
}

// writePerRead charges each process's CPU to the reads answered, when the
// run had reads: the day's figure, where fifty reads come with each click.
func writePerRead(tw *tabwriter.Writer, c *CPUReport) {
	if c.Reads == 0 {
		return
	}
	fmt.Fprintf(tw, "\nCPU PER READ (the same CPU, bookings' included, over %d reads answered)\nprocess\tus/read\n", c.Reads)
	for _, l := range c.Processes {
		if l.Found {
			fmt.Fprintf(tw, "%s\t%.1f\n", l.Process, l.Seconds*1e6/float64(c.Reads))
		}
	}
	fmt.Fprintf(tw, "TOTAL\t%.1f\n", c.TotalSeconds*1e6/float64(c.Reads))
}

func cpuLine(tw *tabwriter.Writer, l CPULine) {
	if !l.Found {
		fmt.Fprintf(tw, "%s\tnot found\t-\t-\t-\n", l.Process)
		return
	}
	fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.0f\n", l.Process, pidsText(l.PIDs), l.Seconds, l.Cores, l.USPerBooking)
}

func pidsText(pids []int) string {
	if len(pids) == 0 {
		return ""
	}
	parts := make([]string, 0, 3)
	for _, p := range pids[:min(len(pids), 3)] {
		parts = append(parts, strconv.Itoa(p))
	}
	s := strings.Join(parts, ",")
	if len(pids) > 3 {
		s += fmt.Sprintf(",… (%d)", len(pids))
	}
	return s
}

// writeCompare prints the hot-slot comparison: both knees, the ratio and
// each leg's CPU per booking; the legs' full reports are in their folders.
func (r *Report) writeCompare(tw *tabwriter.Writer) {
	c := r.Compare
	fmt.Fprintf(tw, "termin hot-slot comparison, seed %d, started %s: the same ramp (%s) on one huge slot each, twice in one run\n",
		r.Seed, r.Started.Format("2006-01-02 15:04:05Z"), c.Ramp)
	section(tw, "KNEES (confirmed = booked_count growth in the database)", "target\tknee found\tconfirmed/s\tat offered/s\tCPU us/booking (all processes)\tinvariants\treport")
	for _, l := range []CompareLeg{c.Whole, c.Baseline} {
		fmt.Fprintf(tw, "%s\t%v\t%.1f\t%.0f\t%.0f\t%s\t%s\n", l.Target, l.Knee.Found, l.Knee.Confirmed, l.Knee.Offered,
			l.CPU.TotalUSPerBooking, passText(l.Passed), l.Dir)
	}
	fmt.Fprintf(tw, "\nratio whole path / seed baseline: %.2f x\n", c.Ratio)
	if c.BaselineServerUS > 0 {
		fmt.Fprintf(tw, "seed baseline server alone: about %.0f us/booking (its process less the generator's share at the whole-path leg's cost per request)\n", c.BaselineServerUS)
	}
	for _, l := range []CompareLeg{c.Whole, c.Baseline} {
		fmt.Fprintf(tw, "\n%s:", strings.ToUpper(l.Target))
		writeCPU(tw, l.CPU)
	}
	r.writeChecks(tw)
}
