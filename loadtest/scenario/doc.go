// Package scenario runs the load test's scenarios against a booking system
// and proves afterwards, from the database, that nothing was overbooked or
// lost. Each scenario seeds its own slots in the run's doctor range and is
// a small workload, which decides who clicks on which slot; the generator
// (package generate) sends the clicks and records the answers, so that the
// client model is one and the same in every scenario.
//
// Run knows "opening" (one popular doctor's slots open at one instant),
// "sustained" (one huge slot, the rate ramped until confirmed bookings per
// second stop rising: the knee), "day" (a clinic's fortnight, reads and
// writes at 50:1), "opening-all" (every doctor's day opens at one instant)
// and "hotslot-compare" (the sustained ramp through the system and against
// the seed's design, package seedbaseline). Every run also charges each
// process's CPU, read from /proc (package proccpu), to the bookings the
// database confirmed, and saves the report (package report). RunFairness
// measures whether bot accounts win an opening more often than one-click
// patients.
package scenario
