package jetstream_test

import (
	"slices"
	"testing"

	"termin/gateway"
	"termin/gateway/jetstream"
	"termin/shared"
)

// TestLineLoadsOnTheWire: loads survive the round trip; a message of the
// wrong length, too long, or with ids out of range is refused whole.
func TestLineLoadsOnTheWire(t *testing.T) {
	loads := []gateway.LineLoad{{SlotID: 1, Demand: 30, Inflight: 5}, {SlotID: 1 << 40, Demand: 0}}
	back, err := jetstream.DecodeLines(jetstream.EncodeLines(loads))
	if err != nil || !slices.Equal(back, loads) {
		t.Errorf("round trip: %v %v, want %v", back, err, loads)
	}
	bad := map[string][]byte{
		"ragged":          make([]byte, 17),
		"zero slot":       jetstream.EncodeLines([]gateway.LineLoad{{SlotID: 0, Demand: 1}}),
		"negative demand": jetstream.EncodeLines([]gateway.LineLoad{{SlotID: 1, Demand: -1}}),
		"too many":        make([]byte, 16*(32_768+1)),
	}
	for name, data := range bad {
		if _, err := jetstream.DecodeLines(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestPlaceNotesFromTheBus: notes without a patient, doctor or valid key are
// dropped; a code this build does not name becomes a released place.
func TestPlaceNotesFromTheBus(t *testing.T) {
	notes := []gateway.PlaceNote{
		{Patient: 1, Doctor: 2, Key: "k"},
		{Patient: 0, Doctor: 2, Key: "k"},
		{Patient: 1, Doctor: 2, Key: "bad key"},
		{Patient: 1, Doctor: 2, Key: "k", Code: shared.CodeSlotFull},
		{Patient: 1, Doctor: 2, Key: "k", Code: "SOMETHING_NEW"},
	}
	got := jetstream.ValidNotes(notes)
	want := []shared.Code{"", shared.CodeSlotFull, gateway.CodeReleased}
	var codes []shared.Code
	for _, n := range got {
		codes = append(codes, n.Code)
	}
	if !slices.Equal(codes, want) {
		t.Errorf("kept codes %v, want %v", codes, want)
	}
}
