package report

import (
	"fmt"
	"text/tabwriter"
)

// ClosedComparison is one hot slot in a closed loop through the whole path
// beside the seed's design, each at several concurrencies in one run.
type ClosedComparison struct {
	Whole    ClosedLeg `json:"wholePath"`
	Baseline ClosedLeg `json:"seedBaseline"`
	// Ratio is the whole path's confirmed bookings per second at its best
	// concurrency over the baseline's at its own best.
	Ratio float64 `json:"bestRatio"`
}

// ClosedLeg is one design's steps, one per concurrency.
type ClosedLeg struct {
	Target string       `json:"target"`
	Steps  []ClosedStep `json:"steps"`
}

// Best is the step with the most confirmed bookings per second.
func (l ClosedLeg) Best() ClosedStep {
	var best ClosedStep
	for _, s := range l.Steps {
		if s.Confirmed > best.Confirmed {
			best = s
		}
	}
	return best
}

// ClosedStep is one concurrency: clients that each book as a new patient,
// wait for the answer and book again.
type ClosedStep struct {
	Conns   int     `json:"clients"`
	Seconds float64 `json:"seconds"`
	// Confirmed is the slot's booked_count growth per second: the
	// database's count, whatever the answers said.
	Confirmed float64    `json:"confirmedPerSecond"`
	Answers   int        `json:"answers"`
	Created   int        `json:"created201"`
	Queued    int        `json:"queued202"`
	Other     int        `json:"other"`
	P50MS     float64    `json:"p50Ms"`
	P99MS     float64    `json:"p99Ms"`
	CPU       *CPUReport `json:"cpu"`
}

// writeClosed prints both legs' steps, their best and the ratio.
func (r *Report) writeClosed(tw *tabwriter.Writer) {
	c := r.Closed
	fmt.Fprintf(tw, "termin hot slot, closed loop, seed %d, started %s: each client books as a new patient and books again once answered\n",
		r.Seed, r.Started.Format("2006-01-02 15:04:05Z"))
	section(tw, "STEPS (confirmed = booked_count growth in the database)", "target\tclients\tconfirmed/s\tanswers\t201\t202\tother\tp50 ms\tp99 ms\tCPU us/booking (all measured)")
	for _, l := range []ClosedLeg{c.Whole, c.Baseline} {
		for _, s := range l.Steps {
			us := 0.0
			if s.CPU != nil {
				us = s.CPU.TotalUSPerBooking
			}
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%d\t%d\t%d\t%s\t%s\t%.0f\n", l.Target, s.Conns, s.Confirmed, s.Answers,
				s.Created, s.Queued, s.Other, fmtMS(s.P50MS), fmtMS(s.P99MS), us)
		}
	}
	w, b := c.Whole.Best(), c.Baseline.Best()
	fmt.Fprintf(tw, "\nbest: whole path %.0f/s at %d clients, seed baseline %.0f/s at %d clients: ratio %.2f x\n",
		w.Confirmed, w.Conns, b.Confirmed, b.Conns, c.Ratio)
	for _, l := range []struct {
		name string
		s    ClosedStep
	}{{"WHOLE PATH AT ITS BEST", w}, {"SEED BASELINE AT ITS BEST", b}} {
		fmt.Fprintf(tw, "\n%s:", l.name)
		writeCPU(tw, l.s.CPU)
	}
	r.writeChecks(tw)
}

// SeedComparison puts a run through the gateway beside the same load
// against the seed's design in the same run (-against-seed).
type SeedComparison struct {
	// CPUUS and SeedCPUUS are CPU per confirmed booking of every measured
	// process but the load generator; the seed's is its server (the
	// generator's process less the generator's estimated share) and
	// PostgreSQL.
	CPUUS     float64 `json:"usPerBooking"`
	SeedCPUUS float64 `json:"seedUsPerBooking"`
	// Ratio is CPUUS over SeedCPUUS.
	Ratio     float64 `json:"cpuRatio"`
	P50MS     float64 `json:"decisionP50Ms"`
	P99MS     float64 `json:"decisionP99Ms"`
	SeedP50MS float64 `json:"seedDecisionP50Ms"`
	SeedP99MS float64 `json:"seedDecisionP99Ms"`
	Dir       string  `json:"seedReport"`
}

// writeAgainstSeed prints the comparison, when the run made one.
func (r *Report) writeAgainstSeed(tw *tabwriter.Writer) {
	c := r.AgainstSeed
	if c == nil {
		return
	}
	section(tw, "AGAINST THE SEED'S DESIGN (the same load, its own doctors, in this run; its report: "+c.Dir+")",
		"design\tCPU us/booking (all measured but the generator)\tdecision p50 ms\tp99 ms")
	fmt.Fprintf(tw, "whole path\t%.0f\t%s\t%s\n", c.CPUUS, fmtMS(c.P50MS), fmtMS(c.P99MS))
	fmt.Fprintf(tw, "seed design\t%.0f\t%s\t%s\n", c.SeedCPUUS, fmtMS(c.SeedP50MS), fmtMS(c.SeedP99MS))
	fmt.Fprintf(tw, "CPU per booking, whole path over the seed's design: %.2f x\n", c.Ratio)
}
