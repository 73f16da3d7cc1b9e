// Package generate is the load generator: it fires a scenario's clicks and
// slot-list reads at a target with vegeta and records every answer. It
// models real clients, so that a figure measured with it means what it
// says: open loop (vegeta's pacer; latency counts from the time a request
// was due), one Idempotency-Key per click repeated after 202 or 503 at the
// time Retry-After names, a 429 honoured, and impatient double clicks.
//
// The scenarios (package scenario) decide who clicks on which slot through
// a Workload; this package keeps the ledger of what each click was told,
// which the invariant checks (package checks) compare with the database,
// the statistics the report shows, the wait until the system has caught up
// behind the answers, and the progress bar. It knows nothing of seeding or
// of a particular scenario, so that each scenario stays a small workload.
package generate
