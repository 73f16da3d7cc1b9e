package system_test

import (
	"context"
	"testing"
	"time"
)

// TestInsuranceThroughHTTP: a plan reserves a range for privately insured
// patients, the slot list says so, and a booking of such a slot is refused
// with INSURANCE_MISMATCH until the patient's profile names that insurance.
func TestInsuranceThroughHTTP(t *testing.T) {
	t.Parallel()
	s := newPeopleStack(t)
	plan := map[string]any{"slotMinutes": 30, "capacity": 1, "horizonDays": 3, "weekly": []map[string]any{}}
	for _, d := range []string{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"} {
		plan["weekly"] = append(plan["weekly"].([]map[string]any),
			map[string]any{"day": d, "from": "08:00", "to": "09:00", "insurance": "PKV"},
			map[string]any{"day": d, "from": "09:00", "to": "10:00"})
	}
	expect(t, "plan", s.admin().send("PUT", "/api/doctors/42/schedule", "", plan), 200)
	// Tomorrow is bookable at any hour: with horizonDays 3 the day after it
	// opens only at today's opening.
	day := s.now().In(berlin).AddDate(0, 0, 1).Format(time.DateOnly)
	list := s.patient(7).mustSend("GET", "/api/doctors/42/slots?date="+day, "", nil)
	var reserved, open int
	for _, sl := range list.body["slots"].([]any) {
		switch sl.(map[string]any)["insurance"] {
		case "PKV":
			reserved++
		case nil:
			open++
		}
	}
	if reserved != 2 || open != 2 {
		t.Fatalf("the day lists %d PKV and %d open slots, want 2 and 2: %v", reserved, open, list.body)
	}
	expect(t, "bad insurance in a plan", s.admin().send("PUT", "/api/doctors/42/schedule", "", map[string]any{"slotMinutes": 30,
		"capacity": 1, "horizonDays": 3, "weekly": []map[string]any{{"day": "MON", "from": "08:00", "to": "09:00", "insurance": "AOK"}}}),
		400, "INVALID_REQUEST")

	slot := s.slot(43, s.now().Add(24*time.Hour).Truncate(time.Minute), 1)
	if _, err := s.db.Exec(context.Background(), `UPDATE time_slot SET insurance = 'PKV' WHERE id = $1`, slot); err != nil {
		t.Fatal(err)
	}
	p := s.patient(7)
	expect(t, "statutory profile", p.send("PUT", "/api/patients/me", "", map[string]any{"name": "A", "insurance": "GKV"}), 200)
	expect(t, "booking the PKV slot", p.mustSend("POST", "/api/appointments", "ins-1", bookBody(slot, 7)), 409, "INSURANCE_MISMATCH")
	expect(t, "private profile", p.send("PUT", "/api/patients/me", "", map[string]any{"name": "A", "insurance": "PKV"}), 200)
	expect(t, "booking again", p.mustSend("POST", "/api/appointments", "ins-2", bookBody(slot, 7)), 201)
}
