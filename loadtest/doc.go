// Package loadtest replays the 7:00 opening rush against a running booking
// system and then proves, from the database, that nothing was overbooked or
// lost. A figure nobody can fake needs both halves: load that behaves like the
// real clients (open loop, one Idempotency-Key per click, Retry-After
// honoured, impatient double clicks) and a check of every invariant that the
// load could have broken.
//
// This package holds only what every part of the load test shares: the
// options of a run and their defaults, the scenarios' and the CPU table's
// names, the run's id range, the popular doctor a test may book beside the
// burst, and the report's types. The work is done beneath it, so that each
// part stays small and none imports another in a circle: package generate
// fires the requests with vegeta (github.com/tsenart/vegeta/v12/lib) and
// records the answers, package scenario seeds and runs the scenarios,
// package checks holds the invariant checks, package budget each
// scenario's budgets and their verdict, package report the report,
// package proccpu reads CPU per process from /proc, and package
// seedbaseline serves the seed's design for comparison.
package loadtest
