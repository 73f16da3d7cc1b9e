package system_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Doctors by name: an admin's PUT is stored by a booker and shown by the
// doctor list and the slot list; a slot not yet open says when it opens.
func TestDoctorsAndTheSlotList(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	put := s.mustDo("PUT", "/api/doctors/42", "", []byte(`{"name":"Dr. Weber","specialty":"Allgemeinmedizin"}`))
	if put.status != 200 || put.body["name"] != "Dr. Weber" {
		t.Fatalf("PUT doctor = %d %v", put.status, put.body)
	}
	s.mustDo("PUT", "/api/doctors/7", "", []byte(`{"name":"Dr. Adler"}`))
	s.mustDo("PUT", "/api/practices/2", "", []byte(`{"name":"Praxis Mitte","street":"Hauptstraße 1","postcode":"10115","city":"Berlin"}`))
	s.mustDo("PUT", "/api/doctors/42", "", []byte(`{"name":"Dr. Weber","specialty":"Kardiologie","practiceId":2}`))
	list := s.mustDo("GET", "/api/doctors", "", nil)
	if got := fmt.Sprint(list.body["doctors"]); got != "[map[id:7 name:Dr. Adler nextFree:[] practice:map[city: id:1 name: postcode: street:] specialty:] "+
		"map[id:42 name:Dr. Weber nextFree:[] practice:map[city:Berlin id:2 name:Praxis Mitte postcode:10115 street:Hauptstraße 1] specialty:kardiologie]]" {
		t.Errorf("doctors = %s", got)
	}
	found := s.mustDo("GET", "/api/doctors?specialty=kardiologie&city=berlin&q=weber", "", nil)
	if got := fmt.Sprint(found.body["doctors"]); found.status != 200 || !strings.Contains(got, "id:42") || strings.Contains(got, "id:7") {
		t.Errorf("search = %d %s, want doctor 42 alone", found.status, got)
	}
	if bad := s.mustDo("PUT", "/api/doctors/42", "", []byte(`{"name":""}`)); bad.status != 400 || bad.code() != "INVALID_REQUEST" {
		t.Errorf("empty name = %d %v", bad.status, bad.body)
	}
	day := s.now().In(berlin).AddDate(0, 0, 2)
	start := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, berlin)
	open, notYet := s.slot(42, start, 1), s.slot(42, start.Add(time.Hour), 1)
	opens := s.now().Add(36 * time.Hour).Truncate(time.Second)
	if _, err := s.db.Exec(context.Background(), `UPDATE time_slot SET opens_at = $2 WHERE id = $1`, notYet, opens); err != nil {
		t.Fatal(err)
	}
	slots := s.mustDo("GET", "/api/doctors/42/slots?date="+day.Format(time.DateOnly), "", nil)
	doctor, _ := slots.body["doctor"].(map[string]any)
	if slots.status != http.StatusOK || doctor["name"] != "Dr. Weber" || doctor["specialty"] != "kardiologie" {
		t.Errorf("slot list = %d %v, want doctor Dr. Weber", slots.status, slots.body)
	}
	items, _ := slots.body["slots"].([]any)
	if len(items) != 2 {
		t.Fatalf("slots = %v, want 2", items)
	}
	first, second := items[0].(map[string]any), items[1].(map[string]any)
	if first["id"] != float64(open) || first["opensAt"] != nil || second["opensAt"] != opens.UTC().Format(time.RFC3339) {
		t.Errorf("slots = %v, want opensAt %s on slot %d only", items, opens.UTC().Format(time.RFC3339), notYet)
	}
}

// Plans reach a year ahead: 366 days are taken, 367 refused.
func TestScheduleAYearAhead(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	plan := `{"slotMinutes":60,"capacity":1,"horizonDays":%d,"weekly":[{"day":"MON","from":"08:00","to":"09:00"}]}`
	if r := s.mustDo("PUT", "/api/doctors/42/schedule", "", fmt.Appendf(nil, plan, 367)); r.status != 400 || r.code() != "INVALID_REQUEST" {
		t.Errorf("horizonDays 367 = %d %v, want 400", r.status, r.body)
	}
	r := s.mustDo("PUT", "/api/doctors/42/schedule", "", fmt.Appendf(nil, plan, 366))
	if r.status != 200 || r.body["slotsCreated"].(float64) < 52 {
		t.Fatalf("horizonDays 366 = %d %v, want a year of Mondays", r.status, r.body)
	}
	// The last Monday lies in the horizon's last week, whatever today's weekday.
	var lastAt time.Time
	if err := s.db.QueryRow(t.Context(), `SELECT max(start_at) FROM time_slot WHERE doctor_id = 42`).Scan(&lastAt); err != nil {
		t.Fatal(err)
	}
	if last := int(lastAt.Sub(s.now()).Hours() / 24); last < 358 || last > 366 {
		t.Errorf("the last slot lies %d days ahead, want 358 to 366", last)
	}
}
