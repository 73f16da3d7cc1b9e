package jetstream_test

import (
	"errors"
	"testing"

	"termin/booker/jetstream"
	"termin/shared"
)

// TestValidateAlternatives: a booking naming alternatives is taken only at
// its own version, with 2 to 20 distinct positive slots starting with its
// slotId; a single-slot booking keeps version 1.
func TestValidateAlternatives(t *testing.T) {
	book := func(v int, slot int64, slots ...int64) shared.Command {
		return shared.Command{V: v, Kind: shared.KindBook, SlotID: slot, SlotIDs: slots, PatientID: 7, IdempotencyKey: "k"}
	}
	many := make([]int64, shared.MaxAlternatives+1)
	for i := range many {
		many[i] = int64(i + 1)
	}
	cases := []struct {
		name string
		cmd  shared.Command
		ok   bool
	}{
		{"single slot, version 1", book(shared.Version, 5), true},
		{"alternatives", book(shared.VersionAlternatives, 5, 5, 6, 7), true},
		{"twenty alternatives", book(shared.VersionAlternatives, 1, many[:20]...), true},
		{"twenty-one", book(shared.VersionAlternatives, 1, many...), false},
		{"one alternative", book(shared.VersionAlternatives, 5, 5), false},
		{"first is not slotId", book(shared.VersionAlternatives, 5, 6, 5), false},
		{"named twice", book(shared.VersionAlternatives, 5, 5, 6, 5), false},
		{"not positive", book(shared.VersionAlternatives, 5, 5, -1), false},
		{"version 2 without alternatives", book(shared.VersionAlternatives, 5), false},
		{"cancellation with alternatives", shared.Command{V: shared.VersionAlternatives, Kind: shared.KindCancel,
			AppointmentID: 3, SlotIDs: []int64{1, 2}}, false},
		{"alternatives at version 1", book(shared.Version, 5, 5, 6), false},
		{"unknown version", book(3, 5, 5, 6), false},
	}
	for _, c := range cases {
		err := jetstream.Validate(c.cmd)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, jetstream.ErrMalformed)) {
			t.Errorf("%s: %v, want ok %v (or malformed)", c.name, err, c.ok)
		}
	}
}
