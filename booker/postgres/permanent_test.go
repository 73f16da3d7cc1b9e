package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
)

// TestDataErrorIsPermanent: data the database refuses (an 80-character key:
// SQLSTATE 22001) is ErrPermanent, so the booker parks the command instead
// of retrying it for ever; a fault the next attempt may not meet is not.
func TestDataErrorIsPermanent(t *testing.T) {
	store, pool := newStore(t)
	slot := pgtest.InsertSlot(t, pool, 1, time.Now().Add(24*time.Hour), 1)
	ops := []booker.Op{{Book: &booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: strings.Repeat("k", 80)}}}
	_, err := store.Decide(context.Background(), ops)
	if !errors.Is(err, booker.ErrPermanent) || !strings.Contains(err.Error(), "22001") {
		t.Fatalf("Decide with an 80-character key: %v, want ErrPermanent naming SQLSTATE 22001", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ops[0].Book.IdempotencyKey = "ok"
	if _, err := store.Decide(ctx, ops); err == nil || errors.Is(err, booker.ErrPermanent) {
		t.Errorf("a cancelled context: %v, want a transient error", err)
	}
	if n := bookedCount(t, pool, slot); n != 0 {
		t.Errorf("booked_count %d after two failed batches", n)
	}
}
