package system_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
)

// TestConfirmationFollowsConsent: through HTTP alone a patient enters an
// e-mail address with consent and books: the confirmation goes to that
// address. Consent withdrawn, the next booking sends nothing, and the
// profile says since when.
func TestConfirmationFollowsConsent(t *testing.T) {
	t.Parallel()
	s := newPeopleStack(t)
	anna := s.patient(7)
	day := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	first, second := s.slot(42, day, 1), s.slot(42, day.Add(time.Hour), 1)

	given := anna.send("PUT", "/api/patients/me", "", map[string]any{"name": "Anna Berg", "email": "anna@example.org",
		"language": "de", "consent": map[string]bool{"email": true, "sms": false}})
	expect(t, "profile with consent", given, 200)
	expect(t, "first booking", anna.mustSend("POST", "/api/appointments", "c-1", bookBody(first, 7)), 201)
	s.notifierSettled(map[string]int{"appointment.booked": 1})
	if m := anna.messages(); len(m) != 1 || m[0]["channel"] != "email" || m[0]["to"] != "anna@example.org" ||
		m[0]["kind"] != "appointment.booked" {
		t.Fatalf("messages after the first booking = %v, want one confirmation to anna@example.org", m)
	}

	withdrawn := anna.send("PUT", "/api/patients/me", "", map[string]any{"name": "Anna Berg", "email": "anna@example.org",
		"consent": map[string]bool{"email": false, "sms": false}})
	expect(t, "consent withdrawn", withdrawn, 200)
	if withdrawn.body["consentAt"].(map[string]any)["email"] == given.body["consentAt"].(map[string]any)["email"] {
		t.Errorf("consentAt.email did not move when consent was withdrawn: %v", withdrawn.body)
	}
	expect(t, "second booking", anna.mustSend("POST", "/api/appointments", "c-2", bookBody(second, 7)), 201)
	s.notifierSettled(map[string]int{"appointment.booked": 2})
	if m := anna.messages(); len(m) != 1 {
		t.Fatalf("messages after the second booking = %v, want still the one confirmation", m)
	}
	if p := anna.mustSend("GET", "/api/patients/me", "", nil); p.body["consent"].(map[string]any)["email"] != false {
		t.Errorf("profile after withdrawal = %v", p.body)
	}
}

// TestProfileRefusesBadInput: a profile that cannot be right is refused
// with INVALID_REQUEST and changes nothing.
func TestProfileRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := newPeopleStack(t)
	p := s.patient(7)
	for name, body := range map[string]any{
		"consent without address": map[string]any{"consent": map[string]bool{"email": true}},
		"bad e-mail":              map[string]any{"email": "anna at example"},
		"bad insurance":           map[string]any{"insurance": "AOK"},
		"bad language":            map[string]any{"language": "fr"},
		"unknown field":           map[string]any{"emial": "anna@example.org"},
	} {
		expect(t, name, p.send("PUT", "/api/patients/me", "", body), 400, "INVALID_REQUEST")
	}
	if n := s.queryInt(`SELECT count(*) FROM patient_contact`); n != 0 {
		t.Errorf("%d contact rows after refusals, want 0", n)
	}
}

// TestDefaultCapIsTwoPerDoctor: with the booker's default settings one
// patient holds at most two upcoming appointments of one doctor; the third
// is refused with TOO_MANY_APPOINTMENTS and takes no place.
func TestDefaultCapIsTwoPerDoctor(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	defaults, err := bookerapp.ParseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if defaults.Caps.PerDoctor != 2 || defaults.Caps.Total != 8 {
		t.Fatalf("default caps = %+v, want 2 per doctor and 8 in all", defaults.Caps)
	}
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.startBookerWith(bookerapp.Config{DatabaseURL: s.dbURL, NATSURL: s.natsURL, Addr: "127.0.0.1:0", Zone: berlin,
		Workers: 2, BatchSize: 50, BatchWait: 2 * time.Millisecond, DBConns: 4, Migrate: true,
		Stream: jetstream.DefaultConfig(), Logger: quietLogger(), Caps: defaults.Caps})
	day := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	var slots []int64
	for i := range 3 {
		slots = append(slots, s.slot(42, day.Add(time.Duration(i)*time.Hour), 1))
	}
	other := s.slot(43, day.Add(5*time.Hour), 1)
	for i, want := range []int{201, 201, 409} {
		a := s.mustDo("POST", "/api/appointments", fmt.Sprintf("cap-%d", i), bookBody(slots[i], 7))
		if a.status != want || (want == 409 && a.code() != "TOO_MANY_APPOINTMENTS") {
			t.Fatalf("booking %d = %d %v, want %d", i+1, a.status, a.body, want)
		}
	}
	expect(t, "another doctor", s.mustDo("POST", "/api/appointments", "cap-other", bookBody(other, 7)), 201)
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slots[2]); n != 0 {
		t.Errorf("the refused slot's booked_count = %d, want 0", n)
	}
}

// TestErasureRacesBookings: a patient's erasure while many of its bookings
// are on their way leaves every slot's count equal to its active
// appointments, no upcoming active appointment under a pseudonym, and no
// contact data.
func TestErasureRacesBookings(t *testing.T) {
	t.Parallel()
	s := newPeopleStack(t)
	p := s.patient(9)
	expect(t, "profile", p.send("PUT", "/api/patients/me", "", map[string]any{"name": "Ben", "email": "ben@example.org",
		"consent": map[string]bool{"email": true}}), 200)
	day := s.now().Add(72 * time.Hour).Truncate(time.Hour)
	var slots []int64
	for i := range 24 {
		slots = append(slots, s.slot(int64(100+i), day.Add(time.Duration(i)*time.Hour), 2))
	}
	past := s.slot(99, day.Add(-time.Hour), 1)
	expect(t, "a visit", p.mustSend("POST", "/api/appointments", "past", bookBody(past, 9)), 201)
	s.startSlotAt(past, s.now().Add(-24*time.Hour))
	var wg sync.WaitGroup
	for i, slot := range slots {
		wg.Go(func() {
			if i == len(slots)/2 {
				if a := p.mustSend("DELETE", "/api/patients/me", "", nil); a.status != 204 {
					t.Errorf("erasure = %d %v", a.status, a.body)
				}
			}
			_ = p.mustSend("POST", "/api/appointments", fmt.Sprintf("race-%d", i), bookBody(slot, 9))
		})
	}
	wg.Wait()
	expect(t, "erasure again", p.mustSend("DELETE", "/api/patients/me", "", nil), 204)
	if n := s.queryInt(`SELECT count(*) FROM time_slot t WHERE booked_count <> (SELECT count(*) FROM appointment a
        WHERE a.slot_id = t.id AND a.status IN ('BOOKED', 'HELD'))`); n != 0 {
		t.Errorf("%d slots whose count differs from their active appointments", n)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 9`); n != 0 {
		t.Errorf("%d appointments still name the erased patient", n)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment a JOIN time_slot t ON t.id = a.slot_id
        WHERE a.patient_id < 0 AND a.status IN ('BOOKED', 'HELD') AND t.start_at > $1`, s.now()); n != 0 {
		t.Errorf("%d upcoming active appointments under a pseudonym", n)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND patient_id < 0 AND status = 'BOOKED'`, past); n != 1 {
		t.Errorf("the past visit: %d anonymous booked rows, want 1 (the practice's record stays)", n)
	}
	if n := s.queryInt(`SELECT count(*) FROM patient_contact WHERE patient_id = 9`); n != 0 {
		t.Errorf("contact data left after erasure")
	}
}
