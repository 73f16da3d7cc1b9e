package postgres_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/gateway/find"
	"termin/gateway/postgres"
)

// directory writes practices and doctors as a booker stores them.
type directory struct {
	t    *testing.T
	pool *pgxpool.Pool
}

func (d directory) practice(id int64, name, postcode, city string) {
	d.t.Helper()
	d.exec(`INSERT INTO practice (id, name, street, postcode, city) VALUES ($1, $2, 'Markt 1', $3, $4)`, id, name, postcode, city)
}

func (d directory) doctor(id int64, name, specialty string, practice int64) {
	d.t.Helper()
	d.exec(`INSERT INTO doctor (id, name, specialty, practice_id) VALUES ($1, $2, $3, $4)`, id, name, specialty, practice)
}

func (d directory) exec(sql string, args ...any) {
	d.t.Helper()
	if _, err := d.pool.Exec(d.t.Context(), sql, args...); err != nil {
		d.t.Fatal(err)
	}
}

// ids are the found doctors' ids in order.
func ids(list []find.Result) []int64 {
	out := make([]int64, 0, len(list))
	for _, f := range list {
		out = append(out, f.Doctor.ID)
	}
	return out
}

func search(t *testing.T, r *postgres.Reader, q find.Query) []find.Result {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 100
	}
	list, err := r.FindDoctors(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestFindDoctorsFilters(t *testing.T) {
	reader, pool := newReader(t, time.Date(2026, 10, 12, 6, 0, 0, 0, time.UTC))
	d := directory{t, pool}
	d.practice(1, "Praxis Mitte", "10115", "Berlin")
	d.practice(2, "Praxis Isar", "80331", "München")
	d.practice(3, "Praxis Spree", "10999", "Berlin")
	d.doctor(1, "Dr. Anna Müller", "kardiologie", 1)
	d.doctor(2, "Dr. Jörg Weber", "allgemeinmedizin", 2)
	d.doctor(3, "Dr. Hans Mueller", "allgemeinmedizin", 3)
	d.doctor(4, "Dr. Eva Groß", "hno", 2)
	d.doctor(5, "Dr. 100% Sicher", "hno", 9) // a practice with no address
	tests := []struct {
		name string
		q    find.Query
		want []int64
	}{
		{"no filter", find.Query{}, []int64{1, 2, 3, 4, 5}},
		{"name without umlaut", find.Query{Name: "Muller"}, []int64{1, 3}},
		{"name with umlaut, other case", find.Query{Name: "MÜLLER"}, []int64{1, 3}},
		{"name with ue", find.Query{Name: "mueller"}, []int64{1, 3}},
		{"name with sharp s", find.Query{Name: "gross"}, []int64{4}},
		{"first name with umlaut", find.Query{Name: "jorg"}, []int64{2}},
		{"percent is literal", find.Query{Name: "100%"}, []int64{5}},
		{"underscore is literal", find.Query{Name: "Dr_"}, nil},
		{"one specialty", find.Query{Specialties: []string{"allgemeinmedizin"}}, []int64{2, 3}},
		{"two specialties", find.Query{Specialties: []string{"hno", "kardiologie"}}, []int64{1, 4, 5}},
		{"postcode prefix", find.Query{Postcode: "10"}, []int64{1, 3}},
		{"whole postcode", find.Query{Postcode: "80331"}, []int64{2, 4}},
		{"city without umlaut", find.Query{City: "munchen"}, []int64{2, 4}},
		{"city", find.Query{City: "Berlin"}, []int64{1, 3}},
		{"all combined", find.Query{Name: "muller", Specialties: []string{"allgemeinmedizin"}, City: "berlin", Postcode: "109"}, []int64{3}},
		{"one practice", find.Query{Practice: 2}, []int64{2, 4}},
		{"a practice with no address", find.Query{Practice: 9}, []int64{5}},
		{"practice and name", find.Query{Practice: 2, Name: "weber"}, []int64{2}},
		{"practice with no doctors", find.Query{Practice: 7}, nil},
		{"nothing matches", find.Query{City: "Hamburg"}, nil},
		{"after a cursor", find.Query{After: 3}, []int64{4, 5}},
		{"limit", find.Query{Limit: 2}, []int64{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(search(t, reader, tt.q)); !slices.Equal(got, tt.want) {
				t.Errorf("found %v, want %v", got, tt.want)
			}
		})
	}
	got := search(t, reader, find.Query{Name: "Anna"})
	if p := got[0].Practice; p.ID != 1 || p.Name != "Praxis Mitte" || p.Street != "Markt 1" || p.Postcode != "10115" || p.City != "Berlin" {
		t.Errorf("practice %+v, want Praxis Mitte's address", p)
	}
}

// TestFindDoctorsPagesStableAcrossInserts pages through the doctors while
// others are added before and after the cursor: every doctor there at the
// start is visited exactly once, in id order.
func TestFindDoctorsPagesStableAcrossInserts(t *testing.T) {
	reader, pool := newReader(t, time.Date(2026, 10, 12, 6, 0, 0, 0, time.UTC))
	d := directory{t, pool}
	for id := int64(10); id < 60; id += 2 {
		d.doctor(id, fmt.Sprintf("Dr. %d", id), "hno", 1)
	}
	var seen []int64
	q := find.Query{Limit: 4}
	for page := 0; ; page++ {
		list := search(t, reader, q)
		seen = append(seen, ids(list)...)
		// Add one doctor behind the cursor and one ahead of it.
		d.doctor(int64(1000+page), "Dr. Neu", "hno", 1)
		d.doctor(int64(11+4*page), "Dr. Dazwischen", "kardiologie", 1)
		if len(list) < q.Limit {
			break
		}
		q.After = list[len(list)-1].Doctor.ID
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("doctor %d after %d: a doctor visited twice or out of order (%v)", seen[i], seen[i-1], seen)
		}
	}
	for id := int64(10); id < 60; id += 2 {
		if !slices.Contains(seen, id) {
			t.Errorf("doctor %d never visited", id)
		}
	}
}
