package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"termin/booker"
	"termin/migrations/pgtest"
)

func TestCancelRules(t *testing.T) {
	store, pool := newStore(t)
	store.Rules = booker.CancelRules{Cutoff: 24 * time.Hour}
	ctx := context.Background()
	started := pgtest.InsertSlot(t, pool, 42, testNow.Add(-time.Minute), 1)
	soon := pgtest.InsertSlot(t, pool, 42, testNow.Add(2*time.Hour), 1)
	later := pgtest.InsertSlot(t, pool, 42, testNow.Add(48*time.Hour), 1)
	var ids []int64
	for i, slot := range []int64{started, soon, later} {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO appointment (slot_id, patient_id, status, idempotency_key)
            VALUES ($1, 7, 'BOOKED', $2) RETURNING id`, slot, fmt.Sprint("k", i)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE time_slot SET booked_count = 1 WHERE id = $1`, slot); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, tc := range []struct {
		name string
		id   int64
		want error
	}{{"started", ids[0], booker.ErrAppointmentPast}, {"within the cutoff", ids[1], booker.ErrCancelCutoff}, {"before the cutoff", ids[2], nil}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"single", "batch"} {
				var err error
				if path == "single" {
					_, err = store.Cancel(ctx, tc.id)
				} else {
					var out []booker.Outcome
					if out, err = store.Decide(ctx, []booker.Op{{Cancel: tc.id}}); err == nil {
						err = out[0].Err
					}
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("%s: err = %v, want %v", path, err, tc.want)
				}
			}
		})
	}
	if bookedCount(t, pool, started) != 1 || bookedCount(t, pool, soon) != 1 || bookedCount(t, pool, later) != 0 {
		t.Error("a refused cancel freed a place, or the allowed one did not")
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM outbox_event WHERE type = 'appointment.cancelled'`); n != 1 {
		t.Errorf("%d cancellation events, want 1 (refusals send nothing)", n)
	}
}
