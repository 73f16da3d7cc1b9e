package gateway_test

import (
	"testing"
	"time"

	"termin/gateway"
	"termin/shared"
)

// TestOnePlacePerPatientPerOpening: a patient's second key in the same
// opening, on another slot of the doctor, joins the first key's place (one
// command reaches the queue) and gets its decision; another doctor's opening
// is another place, and once decided the patient may line up again.
func TestOnePlacePerPatientPerOpening(t *testing.T) {
	opens := time.Now().Add(80 * time.Millisecond)
	slotA := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 5, OpensAt: opens}
	slotB := slotA
	slotB.ID = 2
	other := slotA
	other.ID, other.DoctorID = 3, 43
	room, q := newRoom(t, slotA, gateway.DefaultRoomConfig())
	join := func(slot gateway.Slot, key string) *gateway.Ticket {
		t.Helper()
		tk, err := room.Join(t.Context(), slot, gateway.BookRequest{SlotID: slot.ID, PatientID: 7, IdempotencyKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	first := join(slotA, "a")
	cases := []struct {
		name string
		got  *gateway.Ticket
		same bool
	}{
		{"another key, another slot, same opening", join(slotB, "b"), true},
		{"another key, same slot", join(slotA, "c"), true},
		{"the first key again", join(slotA, "a"), true},
		{"another doctor's opening", join(other, "d"), false},
	}
	for _, c := range cases {
		if (c.got == first) != c.same {
			t.Errorf("%s: same place %v, want %v", c.name, c.got == first, c.same)
		}
	}
	if p1, _ := room.Position(first); p1 != 1 {
		t.Errorf("the place is at %d in its pre-queue, want 1 (one entrant)", p1)
	}
	q.waitCount(t, 2) // one command per opening: slot 1 (or 2) and the other doctor's
	if !first.Alias("b") || first.Alias("a") {
		t.Error("Alias does not tell the place's own key from the patient's others")
	}
	q.decide(t, room, first, booked(4))
	if d, _ := cases[0].got.Decision(); d.Code != shared.Booked {
		t.Errorf("the second key got %v, want the place's BOOKED", d.Code)
	}
	if again := join(slotB, "e"); again == first {
		t.Error("a new key after the place was decided still joins the decided place")
	}
}
