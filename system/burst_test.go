package system_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"termin/shared/poll"
)

// client is one patient's click and what it was finally told.
type client struct {
	slot, patient int64
	key           string
	first, final  answer
	err           error
}

// burst releases every client at once, each following 202 and 503 until decided.
func (s *stack) burst(clients []*client, during func()) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			<-start
			c.first, c.final, c.err = s.bookUntilDecided(c.slot, c.patient, c.key, 60*time.Second)
		})
	}
	close(start)
	if during != nil {
		during()
	}
	wg.Wait()
}

func TestBurstOnCapacityOneSlot(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	clients := make([]*client, 300)
	for i := range clients {
		clients[i] = &client{slot: slot, patient: int64(1000 + i), key: fmt.Sprintf("burst-%d", i)}
	}
	s.burst(clients, nil)
	created, booked, full := 0, 0, 0
	for _, c := range clients {
		switch {
		case c.err != nil:
			t.Fatalf("patient %d: %v", c.patient, c.err)
		case c.final.status == http.StatusCreated:
			created++
			booked++
		case c.final.status == http.StatusOK && c.first.status == http.StatusAccepted:
			booked++ // told 202 first, then the booking on the repeat
		case c.final.status == http.StatusConflict && c.final.code() == "SLOT_FULL":
			full++
		default:
			t.Errorf("patient %d finally got %d %v", c.patient, c.final.status, c.final.body)
		}
	}
	if booked != 1 || full != 299 || created > 1 {
		t.Errorf("booked %d (201: %d), SLOT_FULL %d; want 1 booking and 299 SLOT_FULL", booked, created, full)
	}
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 1 {
		t.Errorf("booked_count = %d, want 1", n)
	}
}

func TestBookerKilledMidBurstLosesAndDuplicatesNothing(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	clients := clickers(s.daySlots(20, 5), 400, 5000, "kill") // 400 clicks for 100 places
	s.burst(clients, func() {
		poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
			if n := s.queryInt(`SELECT count(*) FROM appointment`); n < 20 {
				return fmt.Errorf("%d appointments before the kill, want 20", n)
			}
			return nil
		})
		s.booker.Kill()
		time.Sleep(300 * time.Millisecond)
		s.startBooker(nil, nil)
	})
	s.checkInvariants(t, clients)
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE status = 'BOOKED'`); n != 100 {
		t.Errorf("BOOKED = %d, want all 100 places filled (demand 400)", n)
	}
}

// checkInvariants proves that nothing was lost or duplicated: every client got
// a final decision, every booking told is in the database and every BOOKED row
// was told to its client, and no slot holds more than its capacity.
func (s *stack) checkInvariants(t *testing.T, clients []*client) {
	t.Helper()
	told := map[string]int64{}
	final := map[string]string{} // what each client was left with, for a failure's message
	for _, c := range clients {
		final[fmt.Sprintf("%d/%s", c.patient, c.key)] = fmt.Sprintf("%d %s", c.final.status, c.final.code())
		switch {
		case c.err != nil:
			t.Errorf("patient %d: %v", c.patient, c.err)
		case c.final.status == 200 || c.final.status == 201:
			told[fmt.Sprintf("%d/%s", c.patient, c.key)] = c.final.id()
		case c.final.status != 409:
			t.Errorf("patient %d was left with %d %v", c.patient, c.final.status, c.final.body)
		}
	}
	rows, err := s.db.Query(context.Background(), `SELECT id, patient_id, idempotency_key FROM appointment WHERE status = 'BOOKED'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := 0
	for rows.Next() {
		var id, patient int64
		var key string
		if err := rows.Scan(&id, &patient, &key); err != nil {
			t.Fatal(err)
		}
		stored++
		if told[fmt.Sprintf("%d/%s", patient, key)] != id {
			t.Errorf("appointment %d of patient %d (%s) was never told to its client (left with %s)",
				id, patient, key, final[fmt.Sprintf("%d/%s", patient, key)])
		}
	}
	if stored != len(told) {
		t.Errorf("clients told booked: %d, BOOKED rows: %d", len(told), stored)
	}
	if n := s.queryInt(`SELECT count(*) FROM time_slot s WHERE booked_count > capacity OR booked_count <>
        (SELECT count(*) FROM appointment a WHERE a.slot_id = s.id AND a.status = 'BOOKED')`); n != 0 {
		t.Errorf("%d slots with booked_count over capacity or unequal to their BOOKED rows", n)
	}
}

// daySlots makes n slots of doctor 42 tomorrow, 15 minutes apart, with
// places each.
func (s *stack) daySlots(n, places int) []int64 {
	slots := make([]int64, n)
	for i := range slots {
		slots[i] = s.slot(42, s.now().Add(24*time.Hour+time.Duration(i)*15*time.Minute), places)
	}
	return slots
}

// clickers makes n clients that take the slots in turn: patients from first
// on, keys prefix-0, prefix-1 and so on.
func clickers(slots []int64, n int, first int64, prefix string) []*client {
	clients := make([]*client, n)
	for i := range clients {
		clients[i] = &client{slot: slots[i%len(slots)], patient: first + int64(i), key: fmt.Sprintf("%s-%d", prefix, i)}
	}
	return clients
}

// sentBetween counts the clicks first sent between from and to.
func sentBetween(sent []time.Time, from, to time.Time) int {
	n := 0
	for _, at := range sent {
		if at.After(from) && at.Before(to) {
			n++
		}
	}
	return n
}
