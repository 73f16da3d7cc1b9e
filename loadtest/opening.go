package loadtest

import "time"

// Opening is the opening scenario's popular doctor as seeded, before the
// first click: enough for a person or a test to book one of its slots
// through the patient page while the burst runs.
type Opening struct {
	Doctor int64
	// Name is the doctor's name on record, as the page lists it.
	Name  string
	Slots []OpeningSlot
	// OpensAt is when the slots open and the clicks begin; zero when they
	// were open at once.
	OpensAt time.Time
}

// OpeningSlot is one of the popular doctor's slots.
type OpeningSlot struct {
	ID       int64
	Start    time.Time
	Capacity int
}
