package seedbaseline_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// TestSeedReadsListAndFindFreeSlots: the seed's day list and search (here
// without their cache) show a free slot, and neither shows it once booked.
func TestSeedReadsListAndFindFreeSlots(t *testing.T) {
	db, url := start(t)
	slot := newSlot(t, db, 1)
	if _, err := db.Exec(t.Context(), `INSERT INTO practice (id, name, postcode, city) VALUES (5, 'Praxis', '10115', 'Berlin');
        INSERT INTO doctor (id, name, specialty, practice_id) VALUES (42, 'Dr. Weber', 'hno', 5)`); err != nil {
		t.Fatal(err)
	}
	var startAt time.Time
	if err := db.QueryRow(t.Context(), `SELECT start_at FROM time_slot WHERE id = $1`, slot).Scan(&startAt); err != nil {
		t.Fatal(err)
	}
	day := url + "/api/doctors/42/slots?date=" + startAt.UTC().Format(time.DateOnly)
	search := url + "/api/doctors?specialty=hno&city=berlin"
	var list struct{ Slots []struct{ ID int64 } }
	var found struct {
		Doctors []struct{ NextFreeSlotIds []int64 }
	}
	getJSON(t, day, &list)
	getJSON(t, search, &found)
	if len(list.Slots) != 1 || list.Slots[0].ID != slot || len(found.Doctors) != 1 || len(found.Doctors[0].NextFreeSlotIds) != 1 {
		t.Fatalf("before the booking: day %+v, search %+v; want slot %d in both", list, found, slot)
	}
	if a := book(t, url, slot, 7, "k"); a.status != http.StatusCreated {
		t.Fatalf("booking: %d", a.status)
	}
	getJSON(t, day, &list)
	getJSON(t, search, &found)
	if len(list.Slots) != 0 || len(found.Doctors[0].NextFreeSlotIds) != 0 {
		t.Errorf("after the booking: day %+v, search %+v; want the slot gone", list, found)
	}
}
