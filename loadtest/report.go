package loadtest

import (
	"errors"

	"termin/loadtest/checks"
	"termin/loadtest/report"
)

// ErrInvariant is returned by a run when the load broke an invariant; the
// report says which.
var ErrInvariant = errors.New("an invariant check failed")

// ErrBudget is returned by a run with Options.Strict when every invariant
// held but a budget of its scenario was missed (or could not be measured).
var ErrBudget = errors.New("a budget was missed (-strict)")

// Check is one invariant and whether the run kept it (see package checks).
type Check = checks.Check

// The report's data is package report's; these names keep the load test's
// API (a run returns a *Report) as it was.
type (
	Report      = report.Report
	Settings    = report.Settings
	Seeded      = report.Seeded
	AttackLine  = report.AttackLine
	LatencyLine = report.LatencyLine
	BucketLine  = report.BucketLine
	SecondLine  = report.SecondLine
	CPUReport   = report.CPUReport
	CPULine     = report.CPULine
	Morning     = report.Morning
	MorningLine = report.MorningLine
	BacklogLine = report.BacklogLine
	Comparison  = report.Comparison
	CompareLeg  = report.CompareLeg
	// ClosedComparison, ClosedLeg and ClosedStep are the hotslot-closed
	// scenario's report.
	ClosedComparison = report.ClosedComparison
	ClosedLeg        = report.ClosedLeg
	ClosedStep       = report.ClosedStep
	// SeedComparison is a run's -against-seed leg beside it.
	SeedComparison = report.SeedComparison
	Knee           = report.Knee
	Step           = report.Step
	MetricDelta    = report.MetricDelta
)
