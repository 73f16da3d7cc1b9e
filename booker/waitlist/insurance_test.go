package waitlist_test

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/migrations/pgtest"
)

// TestOfferHonoursTheSlotsInsurance: a freed place of a slot reserved for
// private patients passes over the statutory patient first in line (who
// keeps waiting) and the one with no insurance on record, and is held for
// the private patient behind them.
func TestOfferHonoursTheSlotsInsurance(t *testing.T) {
	s, q, slot, b := holdScene(t)
	pool := q.(*pgxpool.Pool)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(t.Context(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE time_slot SET insurance = 'PKV' WHERE id = $1`, slot)
	exec(`INSERT INTO patient_contact (patient_id, insurance) VALUES (100, 'GKV'), (101, 'PKV')`)
	e, ok := cancelAndOffer(t, s, slot, b)
	if !ok || e.PatientID != 101 {
		t.Fatalf("offered %+v (ok %v), want patient 101, the private one", e, ok)
	}
	if n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM waitlist_entry WHERE patient_id = 100 AND status = 'WAITING'`); n != 1 {
		t.Errorf("the statutory patient passed over no longer waits")
	}
}
