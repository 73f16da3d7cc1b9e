package seedbaseline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest/seedbaseline"
	"termin/migrations/pgtest"
)

func start(t *testing.T) (*pgxpool.Pool, string) {
	t.Helper()
	db, _ := pgtest.Pool(t, 25)
	srv := httptest.NewServer(seedbaseline.New(db))
	t.Cleanup(srv.Close)
	return db, srv.URL
}

func newSlot(t *testing.T, db *pgxpool.Pool, capacity int) int64 {
	t.Helper()
	start := time.Now().Add(24 * time.Hour).Truncate(time.Minute)
	var id int64
	if err := db.QueryRow(context.Background(), `INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
        VALUES (42, $1, $2, $3) RETURNING id`, start, start.Add(15*time.Minute), capacity).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

type answer struct {
	status int
	appt   seedbaseline.Appointment
	code   string
}

func book(t *testing.T, url string, slot, patient int64, key string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/api/appointments", strings.NewReader(fmt.Sprintf(`{"slotId":%d,"patientId":%d}`, slot, patient)))
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode}
	var body struct {
		seedbaseline.Appointment
		Code string `json:"code"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	a.appt, a.code = body.Appointment, body.Code
	return a
}

// concurrently sends n bookings at once, released together.
func concurrently(t *testing.T, n int, one func(i int) answer) []answer {
	t.Helper()
	out := make([]answer, n)
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Go(func() {
			ready.Done()
			<-gate
			out[i] = one(i)
		})
	}
	ready.Wait()
	close(gate)
	done.Wait()
	return out
}

func count(t *testing.T, db *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTwentyPatientsOnePlace is the seed's own test (section 5.4): twenty
// patients at once on a slot of capacity 1 make exactly one booking.
func TestTwentyPatientsOnePlace(t *testing.T) {
	db, url := start(t)
	slot := newSlot(t, db, 1)
	answers := concurrently(t, 20, func(i int) answer { return book(t, url, slot, int64(100+i), fmt.Sprintf("key-%d", i)) })
	by := map[string]int{}
	var winner answer
	for i, a := range answers {
		by[fmt.Sprintf("%d %s", a.status, a.code)]++
		if a.status == http.StatusCreated {
			winner = a
			if a.appt.PatientID != int64(100+i) || a.appt.ID == 0 {
				t.Errorf("201 with %+v for patient %d", a.appt, 100+i)
			}
		}
	}
	if by["201 "] != 1 || by["409 SLOT_FULL"] != 19 {
		t.Fatalf("answers %v, want one 201 and nineteen 409 SLOT_FULL", by)
	}
	if n := count(t, db, `SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 1 {
		t.Errorf("booked_count %d, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM appointment WHERE slot_id = $1`, slot); n != 1 {
		t.Errorf("%d appointments, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox_event WHERE aggregate_id = $1 AND type = 'appointment.booked'`, winner.appt.ID); n != 1 {
		t.Errorf("%d outbox rows for the booking, want 1", n)
	}
	again := book(t, url, slot, winner.appt.PatientID, fmt.Sprintf("key-%d", winner.appt.PatientID-100))
	if again.status != http.StatusOK || again.appt.ID != winner.appt.ID {
		t.Errorf("repeat of the winner's key: %d %+v, want 200 with appointment %d", again.status, again.appt, winner.appt.ID)
	}
}

// TestOneKeyRacingBooksOnce: ten copies of one request at once, on a slot
// with room for all, make one appointment and every copy gets it.
func TestOneKeyRacingBooksOnce(t *testing.T) {
	db, url := start(t)
	slot := newSlot(t, db, 10)
	answers := concurrently(t, 10, func(int) answer { return book(t, url, slot, 7, "same-key") })
	created := 0
	for _, a := range answers {
		if a.status == http.StatusCreated {
			created++
		}
		if (a.status != http.StatusCreated && a.status != http.StatusOK) || a.appt.ID != answers[0].appt.ID {
			t.Errorf("answer %d %+v, want 201/200 with appointment %d", a.status, a.appt, answers[0].appt.ID)
		}
	}
	if created != 1 {
		t.Errorf("%d answers 201, want 1", created)
	}
	if n := count(t, db, `SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 1 {
		t.Errorf("booked_count %d, want 1", n)
	}
}

func TestRefusesBadRequests(t *testing.T) {
	db, url := start(t)
	slot := newSlot(t, db, 1)
	for _, tt := range []struct {
		name, key, body string
		want            int
		code            string
	}{
		{"no key", "", fmt.Sprintf(`{"slotId":%d,"patientId":1}`, slot), 400, "INVALID_IDEMPOTENCY_KEY"},
		{"bad key", "a b", fmt.Sprintf(`{"slotId":%d,"patientId":1}`, slot), 400, "INVALID_IDEMPOTENCY_KEY"},
		{"bad json", "k1", `{"slotId":`, 400, "INVALID_REQUEST"},
		{"zero patient", "k2", fmt.Sprintf(`{"slotId":%d,"patientId":0}`, slot), 400, "INVALID_REQUEST"},
		{"no such slot", "k3", `{"slotId":999999999,"patientId":1}`, 409, "SLOT_FULL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, url+"/api/appointments", strings.NewReader(tt.body))
			if tt.key != "" {
				req.Header.Set("Idempotency-Key", tt.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var p struct{ Code string }
			_ = json.NewDecoder(resp.Body).Decode(&p)
			if resp.StatusCode != tt.want || p.Code != tt.code {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, p.Code, tt.want, tt.code)
			}
		})
	}
	if n := count(t, db, `SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 0 {
		t.Errorf("bad requests changed the slot: booked_count %d", n)
	}
}
