package system_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker/notify"
	"termin/booker/outbox"
	"termin/shared/poll"
)

// peopleSecret signs the tokens of the people's tests.
var peopleSecret = []byte("people-test-secret-of-at-least-32-bytes")

// newPeopleStack is a stack whose gateway checks tokens signed with peopleSecret.
func newPeopleStack(t *testing.T) *stack {
	t.Helper()
	s := newStack(t)
	s.gateway = s.startGatewayAuth(peopleSecret)
	return s
}

// withClaims is a caller whose token carries claims, with an hour to live.
func (s *stack) withClaims(claims jwt.MapClaims) caller {
	s.t.Helper()
	claims["exp"] = time.Now().Add(time.Hour).Unix()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(peopleSecret)
	if err != nil {
		s.t.Fatal(err)
	}
	return caller{s: s, bearer: "Bearer " + tok}
}

func (s *stack) patient(id int64) caller {
	return s.withClaims(jwt.MapClaims{"sub": fmt.Sprint(id), "role": "patient"})
}

func (s *stack) doctor(id int64) caller {
	return s.withClaims(jwt.MapClaims{"sub": fmt.Sprintf("dr-%d", id), "role": "doctor", "doctorId": id})
}

func (s *stack) staff(practice int64) caller {
	return s.withClaims(jwt.MapClaims{"sub": fmt.Sprintf("desk-%d", practice), "role": "staff", "practiceId": practice})
}

func (s *stack) admin() caller {
	return s.withClaims(jwt.MapClaims{"sub": "ops", "role": "admin"})
}

// doctorIn records a doctor of a practice: the seeding of a test, as an
// installation's administrator would.
func (s *stack) doctorIn(doctorID, practiceID int64, name string) {
	s.t.Helper()
	if _, err := s.db.Exec(context.Background(), `
        INSERT INTO doctor (id, name, practice_id) VALUES ($1, $2, $3)
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, practice_id = EXCLUDED.practice_id`,
		doctorID, name, practiceID); err != nil {
		s.t.Fatal(err)
	}
}

// send is mustSend with a JSON body.
func (c caller) send(method, path, key string, body any) answer {
	c.s.t.Helper()
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			c.s.t.Fatal(err)
		}
	}
	return c.mustSend(method, path, key, data)
}

// expect fails the test unless a has the status (and code, when given).
func expect(t *testing.T, what string, a answer, status int, code ...string) {
	t.Helper()
	if a.status != status || (len(code) > 0 && a.code() != code[0]) {
		t.Fatalf("%s = %d %v, want %d %v", what, a.status, a.body, status, code)
	}
}

// notifierSettled waits until every event of the outbox has been relayed and
// handled by the notifier: its consumer holds nothing undelivered or
// unacknowledged, and it has been given at least the events of types.
func (s *stack) notifierSettled(types map[string]int) {
	s.t.Helper()
	for typ, n := range types {
		s.relayedEvents(typ, n)
	}
	nc, err := nats.Connect(s.natsURL)
	if err != nil {
		s.t.Fatal(err)
	}
	defer nc.Close()
	js, _ := natsjs.New(nc)
	poll.For(s.t, 10*time.Second, 20*time.Millisecond, func() error {
		cons, err := js.Consumer(context.Background(), s.space.Name(outbox.StreamName), notify.ConsumerName)
		if err != nil {
			return err
		}
		info, err := cons.Info(context.Background())
		if err != nil {
			return err
		}
		if info.NumPending != 0 || info.NumAckPending != 0 {
			return fmt.Errorf("notifier: %d pending, %d awaiting ack", info.NumPending, info.NumAckPending)
		}
		return nil
	})
}

// messages are the messages the caller's export lists.
func (c caller) messages() []map[string]any {
	c.s.t.Helper()
	x := c.mustSend("GET", "/api/patients/me/export", "", nil)
	if x.status != 200 {
		c.s.t.Fatalf("export = %d %v", x.status, x.body)
	}
	var out []map[string]any
	for _, m := range x.body["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}
