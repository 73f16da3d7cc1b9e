package system_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"termin/shared/poll"
)

// At 07:00 every doctor's new day opens at once and clicks spread over slots
// no gateway has seen. The gateway loads an opening's slots before it, so
// the first clicks on them read nothing from the database, and the booker
// announces the slots they fill without reading their holders.
func TestOpeningIsWarmedBeforeItsFirstClicks(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	opensAt := s.now().Add(5 * time.Second).Truncate(time.Second)
	slots := make([]int64, 12)
	for i := range slots {
		start := opensAt.Add(24*time.Hour + time.Duration(i)*15*time.Minute)
		err := s.db.QueryRow(context.Background(), `
            INSERT INTO time_slot (doctor_id, start_at, end_at, capacity, opens_at)
            VALUES ($1, $2, $3, 1, $4) RETURNING id`, 100+i%3, start, start.Add(15*time.Minute), opensAt).Scan(&slots[i])
		if err != nil {
			t.Fatal(err)
		}
	}
	metrics := s.gateway.URL() + "/metrics"
	reads := metricValue(t, metrics, "gateway_slot_reads_total")
	poll.For(t, 30*time.Second, 20*time.Millisecond, func() error {
		if !s.now().After(opensAt) {
			return fmt.Errorf("the opening at %v is still ahead", opensAt)
		}
		return nil
	})
	for i, slot := range slots {
		_, final, err := s.bookUntilDecided(slot, int64(500+i), "warm-1", 20*time.Second)
		if err != nil || (final.status != http.StatusCreated && final.status != http.StatusOK) {
			t.Fatalf("slot %d: %+v, %v", slot, final, err)
		}
	}
	if got := metricValue(t, metrics, "gateway_slot_reads_total") - reads; got != 0 {
		t.Errorf("the gateway read %v slots one by one for 12 bookings of a warmed opening, want 0", got)
	}
	// Every slot is full now, and known full: a second patient is refused
	// by the gateway itself, without reaching the queue.
	poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
		if n := metricValue(t, metrics, "gateway_known_full_slots"); n != float64(len(slots)) {
			return fmt.Errorf("%v slots known full, want %d", n, len(slots))
		}
		return nil
	})
	a := s.mustDo("POST", "/api/appointments", "warm-2", bookBody(slots[0], 900))
	if a.status != http.StatusConflict || a.code() != "SLOT_FULL" {
		t.Errorf("second patient on a full slot: %d %s, want 409 SLOT_FULL", a.status, a.code())
	}
}
