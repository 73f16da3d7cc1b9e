// Package loadtest replays the 7:00 opening rush against a running booking
// system and then proves, from the database, that nothing was overbooked or
// lost. A figure nobody can fake needs both halves: load that behaves like the
// real clients (open loop, one Idempotency-Key per click, Retry-After
// honoured, impatient double clicks) and a check of every invariant that the
// load could have broken.
//
// The pacing, the worker pool and the latency estimates are vegeta's
// (github.com/tsenart/vegeta/v12/lib); this package adds the client model,
// the follow-up of queued requests, the invariant checks and the report.
//
// Five scenarios exist: "opening" (one popular doctor's slots open at one
// instant, the doctor named so that a person can book one of them through
// the patient page beside the burst), "sustained" (one huge slot, the rate
// ramped until confirmed bookings per second stop rising, to find the
// knee), "day" (a whole clinic's fortnight
// of slots, reads and writes at 50:1), "opening-all" (every doctor's day
// opens at one instant, clicks spread over all of it) and "hotslot-compare"
// (the sustained ramp through the system and against the seed's design,
// package seedbaseline, in one run). Every run also charges each process's
// CPU, read from /proc (package proccpu), to the bookings the database
// confirmed: a figure that does not depend on how busy the cores are.
package loadtest
