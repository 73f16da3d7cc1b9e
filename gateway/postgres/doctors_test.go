package postgres_test

import (
	"testing"
	"time"

	"termin/gateway/postgres"
	"termin/migrations/pgtest"
)

// TestDoctorKnown: a doctor with a slot, only a stored plan or only a name is
// known, a number nobody uses is not, and a plan put later is seen at once.
func TestDoctorKnown(t *testing.T) {
	pool, _ := pgtest.Pool(t, 2)
	pgtest.InsertSlot(t, pool, 42, time.Now().Add(24*time.Hour), 1)
	if _, err := pool.Exec(t.Context(), `INSERT INTO doctor_schedule (doctor_id, plan) VALUES (43, '{}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), `INSERT INTO doctor (id, name) VALUES (44, 'Dr. Weber')`); err != nil {
		t.Fatal(err)
	}
	doctors := postgres.NewKnownDoctors(pool)
	for _, tc := range []struct {
		doctor int64
		want   bool
	}{{42, true}, {43, true}, {44, true}, {99, false}} {
		if got, err := doctors.DoctorKnown(t.Context(), tc.doctor); err != nil || got != tc.want {
			t.Errorf("doctor %d known = %v, %v; want %v", tc.doctor, got, err, tc.want)
		}
	}
	if _, err := pool.Exec(t.Context(), `INSERT INTO doctor_schedule (doctor_id, plan) VALUES (99, '{}')`); err != nil {
		t.Fatal(err)
	}
	if got, err := doctors.DoctorKnown(t.Context(), 99); err != nil || !got {
		t.Errorf("doctor 99 after its plan: known = %v, %v; want true", got, err)
	}
}
