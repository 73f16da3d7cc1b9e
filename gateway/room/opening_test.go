package room_test

import (
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
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
	join := func(slot gateway.Slot, key string) gateway.Ticket {
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
		got  gateway.Ticket
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
	if p1, _ := first.Position(); p1 != 1 {
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

// TestOnePlaceAcrossGateways: a patient's key at gateway b, after its place
// at gateway a was told, follows that place instead of taking one; keys
// sent to both at once keep one place (the same one at both); the place's
// refusal reaches the follower.
func TestOnePlaceAcrossGateways(t *testing.T) {
	opens := time.Now().Add(5 * time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 5, OpensAt: opens}
	cfg := gateway.DefaultRoomConfig()
	a, _ := newRoomNamed(t, slot, cfg, "a")
	b, _ := newRoomNamed(t, slot, cfg, "b")
	rooms := map[string]*wroom.Room{"a": a, "b": b}
	exchange(rooms) // each learns the other is there
	tell := func() {
		for name, r := range rooms {
			notes := r.Exchange().Places(nil)
			for other, o := range rooms {
				if other != name {
					o.Exchange().PeerPlaces(name, notes)
				}
			}
		}
	}
	join := func(r *wroom.Room, patient int64, key string) gateway.Ticket {
		t.Helper()
		tk, err := r.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: patient, IdempotencyKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	if first := join(a, 7, "x"); first.Following() != "" {
		t.Fatal("the first place follows another")
	}
	tell()
	if later := join(b, 7, "y"); later.Following() != "x" {
		t.Errorf("a later key at b follows %q, want a's place x", later.Following())
	}
	at, bt := join(a, 8, "p"), join(b, 8, "q") // at once: both take a place
	tell()
	if at.Following() != "" || bt.Following() != "p" {
		t.Errorf("keys sent at once: a follows %q, b follows %q; want b to follow a's p", at.Following(), bt.Following())
	}
	if _, pre := b.Sizes(); pre != 0 {
		t.Errorf("b still pre-queues %d requests, want none (both its keys follow a)", pre)
	}
	a.SlotState(shared.SlotState{SlotID: 1, Left: 0}) // the slot fills: a refuses its pre-queue
	tell()
	select {
	case <-bt.Done():
		if d, _ := bt.Decision(); d.Code != shared.CodeSlotFull {
			t.Errorf("the follower got %q, want the place's SLOT_FULL", d.Code)
		}
	default:
		t.Error("the follower was not told its place's refusal")
	}
}

// TestAlternativesOutliveTheirLineFilling: when the slot a request naming
// alternatives waits at fills, the others waiting there are refused, but it
// goes on to the booker, which tries its other slots.
func TestAlternativesOutliveTheirLineFilling(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	cfg := gateway.DefaultRoomConfig()
	cfg.Margin = 1
	room, q := newRoom(t, slot, cfg)
	first := joinAll(t, room, slot, 3) // patients 0 and 1 admitted, patient 2 waits
	alt, err := room.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, SlotIDs: []int64{1, 2}, PatientID: 9, IdempotencyKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	q.decide(t, room, first[0], booked(0))
	if d, _ := first[2].Decision(); d.Code != shared.CodeSlotFull {
		t.Errorf("a single-slot request waiting at the full slot got %q, want SLOT_FULL", d.Code)
	}
	select {
	case <-alt.Done():
		d, _ := alt.Decision()
		t.Fatalf("the request with alternatives was answered %q at its line's filling", d.Code)
	default:
	}
	q.decide(t, room, first[1], shared.Decision{Code: shared.CodeSlotFull, SlotID: 1})
	q.waitCount(t, 3) // through the margin, to the booker
}
