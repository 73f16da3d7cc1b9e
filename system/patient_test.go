package system_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/gateway"
	gatewayapp "termin/gateway/app"
	gwhttp "termin/gateway/http"
	"termin/shared/poll"
)

// The patient's own view: each appointment read back with its doctor and
// times, and the list of one's own, upcoming first, then the past.
func TestPatientSeesOwnAppointmentsWithTimes(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	soon := s.now().Add(24 * time.Hour).Truncate(time.Minute)
	later := s.slot(43, soon.Add(48*time.Hour), 1)
	sooner := s.slot(42, soon, 1)
	gone := s.slot(44, soon.Add(time.Hour), 1)
	a := s.mustDo("POST", "/api/appointments", "l-1", bookBody(later, 7))
	b := s.mustDo("POST", "/api/appointments", "l-2", bookBody(sooner, 7))
	c := s.mustDo("POST", "/api/appointments", "l-3", bookBody(gone, 7))
	s.mustDo("POST", "/api/appointments", "l-4", bookBody(s.slot(42, soon.Add(3*time.Hour), 1), 8))
	s.startSlotAt(gone, s.now().Add(-2*time.Hour)) // it took place
	got := s.mustDo("GET", fmt.Sprintf("/api/appointments/%d", b.id()), "", nil)
	if got.status != 200 || got.body["doctorId"] != float64(42) || got.body["startAt"] != soon.UTC().Format(time.RFC3339) ||
		got.body["endAt"] != soon.Add(15*time.Minute).UTC().Format(time.RFC3339) || got.body["status"] != "BOOKED" {
		t.Errorf("GET appointment = %d %v", got.status, got.body)
	}
	list := s.mustDo("GET", "/api/appointments?patientId=7", "", nil)
	items, _ := list.body["appointments"].([]any)
	var ids []int64
	for _, it := range items {
		ids = append(ids, int64(it.(map[string]any)["id"].(float64)))
	}
	if want := []int64{b.id(), a.id(), c.id()}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("list = %v, want %v (upcoming soonest first, then the past; no one else's)", ids, want)
	}
}

// Another patient's appointment is answered exactly like a missing one.
func TestAnotherPatientsAppointmentIsNotFound(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	secret := []byte("a-test-secret-of-at-least-32-bytes!!")
	s.gateway = s.startGatewayAuth(secret)
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	mine := s.as(secret, "7").mustSend("POST", "/api/appointments", "o-1", bookBody(slot, 7))
	if mine.status != 201 {
		t.Fatalf("booking: %d %v", mine.status, mine.body)
	}
	other, missing := s.as(secret, "8"), fmt.Sprintf("/api/appointments/%d", mine.id()+1000)
	for _, path := range []string{fmt.Sprintf("/api/appointments/%d", mine.id()), missing} {
		for _, method := range []string{"GET", "DELETE"} {
			if a := other.mustSend(method, path, "", nil); a.status != 404 || a.code() != "APPOINTMENT_NOT_FOUND" ||
				a.body["detail"] != "appointment not found" {
				t.Errorf("%s %s as another patient = %d %v, want the 404 of a missing one", method, path, a.status, a.body)
			}
		}
	}
	if a := other.mustSend("GET", "/api/appointments", "", nil); a.status != 200 || len(a.body["appointments"].([]any)) != 0 {
		t.Errorf("another patient's list = %d %v, want empty", a.status, a.body)
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 1 {
		t.Errorf("booked_count = %d, want 1", n)
	}
}

func TestCancelRefusedOnceStarted(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	a := s.mustDo("POST", "/api/appointments", "p-1", bookBody(slot, 7))
	s.startSlotAt(slot, s.now().Add(-time.Minute))
	path := fmt.Sprintf("/api/appointments/%d", a.id())
	if d := s.mustDo("DELETE", path, "", nil); d.status != 409 || d.code() != "APPOINTMENT_PAST" {
		t.Fatalf("cancel of a started appointment = %d %v, want 409 APPOINTMENT_PAST", d.status, d.body)
	}
	if g := s.mustDo("GET", path, "", nil); g.body["status"] != "BOOKED" {
		t.Errorf("status after the refusal = %v", g.body["status"])
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 1 {
		t.Errorf("booked_count = %d, want 1 (nothing changes)", n)
	}
	s.relayedEvents("appointment.booked", 1)    // the booking's event has gone through the outbox…
	s.relayedEvents("appointment.cancelled", 0) // …and the refused cancel wrote none: no message
}

func TestCancelCutoff(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.startBookerWith(bookerapp.Config{
		DatabaseURL: s.dbURL, NATSURL: s.natsURL, Addr: "127.0.0.1:0", Zone: berlin, Workers: 2, BatchSize: 50,
		BatchWait: 2 * time.Millisecond, DBConns: 4, Migrate: true, Stream: jetstream.DefaultConfig(), Logger: quietLogger(),
		CancelCutoff: 24 * time.Hour,
	})
	soon := s.mustDo("POST", "/api/appointments", "x-1", bookBody(s.slot(42, s.now().Add(2*time.Hour), 1), 7))
	later := s.mustDo("POST", "/api/appointments", "x-2", bookBody(s.slot(42, s.now().Add(48*time.Hour), 1), 7))
	if d := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", soon.id()), "", nil); d.status != 409 || d.code() != "CANCEL_CUTOFF_PASSED" {
		t.Errorf("cancel within the cutoff = %d %v, want 409 CANCEL_CUTOFF_PASSED", d.status, d.body)
	}
	if d := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", later.id()), "", nil); d.status != 204 {
		t.Errorf("cancel before the cutoff = %d %v, want 204", d.status, d.body)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE status = 'CANCELLED'`); n != 1 {
		t.Errorf("%d cancelled, want 1", n)
	}
}

// startSlotAt moves a slot's start, as the passing of time would.
func (s *stack) startSlotAt(slot int64, at time.Time) {
	s.t.Helper()
	if _, err := s.db.Exec(context.Background(), `UPDATE time_slot SET start_at = $2::timestamptz, end_at = $2::timestamptz + interval '15 minutes' WHERE id = $1`,
		slot, at); err != nil {
		s.t.Fatal(err)
	}
}

// startGatewayAuth starts a gateway of the stack that checks tokens signed with secret.
func (s *stack) startGatewayAuth(secret []byte) *gatewayapp.App {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	gw, err := gatewayapp.Start(ctx, gatewayapp.Config{
		Addr: "127.0.0.1:0", DatabaseURL: s.dbURL, NATSURL: s.natsURL, Zone: berlin,
		ReplyBudget: replyBudget, PublishTimeout: 300 * time.Millisecond, ReadConns: 4,
		Namespace: s.space, SubjectPrefix: "booking", Logger: quietLogger(), Auth: gwhttp.AuthConfig{Secret: secret},
		RateLimit: 5, RateWindow: 10 * time.Second, Room: gateway.DefaultRoomConfig(), ListTTL: 2 * time.Second,
	})
	if err != nil {
		s.t.Fatalf("start gateway: %v", err)
	}
	s.t.Cleanup(func() { shutdown(gw.Shutdown) })
	return gw
}

// caller sends requests with a token.
type caller struct {
	s      *stack
	bearer string
}

// as is a patient's caller (sub "admin" makes an admin's).
func (s *stack) as(secret []byte, sub string) caller {
	role := "patient"
	if sub == "admin" {
		role = "admin"
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": sub, "role": role,
		"exp": time.Now().Add(time.Hour).Unix()}).SignedString(secret)
	if err != nil {
		s.t.Fatal(err)
	}
	return caller{s: s, bearer: "Bearer " + tok}
}

func (c caller) mustSend(method, path, key string, body []byte) answer {
	c.s.t.Helper()
	return c.s.decided(func() (answer, error) {
		req, err := http.NewRequest(method, c.s.gateway.URL()+path, bytes.NewReader(body))
		if err != nil {
			return answer{}, err
		}
		req.Header.Set("Authorization", c.bearer)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		return c.s.send(req)
	})
}

// relayedEvents waits until the outbox is empty and the stream holds want
// events of typ, and fails the test if that does not come to pass.
func (s *stack) relayedEvents(typ string, want int) {
	s.t.Helper()
	poll.For(s.t, 10*time.Second, 20*time.Millisecond, func() error {
		if n := s.queryInt(`SELECT count(*) FROM outbox_event`); n != 0 {
			return fmt.Errorf("%d outbox rows not relayed yet", n)
		}
		if n := s.events(typ); n != want {
			return fmt.Errorf("%d %s events on the stream, want %d", n, typ, want)
		}
		return nil
	})
}
