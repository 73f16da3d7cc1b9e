package postgres_test

import (
	"slices"
	"testing"
	"time"

	"termin/gateway/find"
	"termin/gateway/postgres"
	"termin/migrations/pgtest"
)

// nextFree is doctor 42's next free slots as a search shows them.
func nextFree(t *testing.T, r *postgres.Reader, q find.Query) []int64 {
	t.Helper()
	q.Name = "Weber"
	list := search(t, r, q)
	if len(list) != 1 {
		t.Fatalf("found %d doctors, want doctor 42", len(list))
	}
	var out []int64
	for _, f := range list[0].NextFree {
		out = append(out, f.SlotID)
	}
	return out
}

func TestNextFreeFollowsBookingsCancellationsAndBlocks(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 10, 12, h, 0, 0, 0, time.UTC) }
	reader, pool := newReader(t, at(10))
	d := directory{t, pool}
	d.doctor(42, "Dr. Weber", "hno", 1)
	pgtest.InsertSlot(t, pool, 42, at(9), 1) // started
	s11 := pgtest.InsertSlot(t, pool, 42, at(11), 1)
	s12 := pgtest.InsertSlot(t, pool, 42, at(12), 2)
	s13 := pgtest.InsertSlot(t, pool, 42, at(13), 1)
	s14 := pgtest.InsertSlot(t, pool, 42, at(14), 1)
	s15 := pgtest.InsertSlot(t, pool, 42, at(15), 1)
	pgtest.InsertSlot(t, pool, 43, at(11), 1) // another doctor's
	expect := func(step string, want ...int64) {
		t.Helper()
		if got := nextFree(t, reader, find.Query{}); !slices.Equal(got, want) {
			t.Errorf("%s: next free %v, want %v", step, got, want)
		}
	}
	expect("at first", s11, s12, s13)
	d.exec(`UPDATE time_slot SET booked_count = booked_count + 1 WHERE id = $1 AND booked_count < capacity`, s11)
	expect("after the first is booked", s12, s13, s14)
	d.exec(`UPDATE time_slot SET booked_count = booked_count + 1 WHERE id = $1 AND booked_count < capacity`, s12)
	expect("a slot with a place left stays", s12, s13, s14)
	d.exec(`UPDATE time_slot SET booked_count = booked_count - 1 WHERE id = $1`, s11)
	expect("after a cancellation", s11, s12, s13)
	d.exec(`UPDATE time_slot SET blocked_opens_at = opens_at, opens_at = 'infinity' WHERE id = $1`, s12)
	expect("after a block", s11, s13, s14)
	d.exec(`UPDATE time_slot SET opens_at = $2 WHERE id = $1`, s13, at(11))
	expect("a slot not yet open is left out", s11, s14, s15)
	d.exec(`DELETE FROM time_slot WHERE id = $1`, s11)
	expect("a withdrawn slot is gone", s14, s15)
}

func TestNextFreeHonoursInsurance(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 10, 12, h, 0, 0, 0, time.UTC) }
	reader, pool := newReader(t, at(10))
	d := directory{t, pool}
	d.doctor(42, "Dr. Weber", "hno", 1)
	open := pgtest.InsertSlot(t, pool, 42, at(11), 1)
	pkv := pgtest.InsertSlot(t, pool, 42, at(12), 1)
	gkv := pgtest.InsertSlot(t, pool, 42, at(13), 1)
	d.exec(`UPDATE time_slot SET insurance = 'PKV' WHERE id = $1`, pkv)
	d.exec(`UPDATE time_slot SET insurance = 'GKV' WHERE id = $1`, gkv)
	d.exec(`INSERT INTO patient_contact (patient_id, insurance) VALUES (77, 'GKV')`)
	tests := []struct {
		name string
		q    find.Query
		want []int64
	}{
		{"no insurance: open slots only", find.Query{}, []int64{open}},
		{"private", find.Query{Insurance: "PKV"}, []int64{open, pkv}},
		{"statutory", find.Query{Insurance: "GKV"}, []int64{open, gkv}},
		{"the patient's own", find.Query{PatientID: 77}, []int64{open, gkv}},
		{"asked beats the patient's", find.Query{PatientID: 77, Insurance: "PKV"}, []int64{open, pkv}},
		{"a patient with no profile", find.Query{PatientID: 78}, []int64{open}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextFree(t, reader, tt.q); !slices.Equal(got, tt.want) {
				t.Errorf("next free %v, want %v", got, tt.want)
			}
		})
	}
}
