package postgres_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/gateway/find"
	"termin/gateway/postgres"
)

// planSlots is the seed's day scaled to its two weeks: 2,000 doctors × 40
// slots × 14 days, 1.12 million slots.
const planSlots = 2000 * 40 * 14

// TestSearchPlansAreIndexLookupsAt1_1MillionSlots fills a fresh database
// with 1.12 million slots (a tenth booked, a tenth reserved for PKV), 2,000
// doctors in 400 practices of 40 cities, analyses it, and explains the one
// statement a search runs for each kind of filter, with the planner's
// custom plans and with the generic plans a prepared statement ends up
// with: no plan reads time_slot, and no plan scans a table whole.
func TestSearchPlansAreIndexLookupsAt1_1MillionSlots(t *testing.T) {
	now := time.Date(2026, 10, 12, 5, 0, 0, 0, time.UTC)
	_, pool := newReader(t, now)
	fillDay(t, pool, now)
	queries := map[string]find.Query{
		"first page":          {Limit: 21},
		"next page":           {After: 1500, Limit: 21},
		"name":                {Name: "müller 7", Limit: 21},
		"specialty":           {Specialties: []string{"hno", "kardiologie"}, Limit: 21},
		"city":                {City: "Stadt 7", Limit: 21},
		"postcode":            {Postcode: "100", Limit: 21},
		"practice":            {Practice: 7, Limit: 21},
		"everything":          {Name: "Muller", Specialties: []string{"hno"}, City: "stadt 3", Postcode: "1", Insurance: "PKV", Limit: 21},
		"a patient's search":  {PatientID: 77, Specialties: []string{"hno"}, Limit: 21},
		"a page of a hundred": {Limit: 101},
	}
	for _, mode := range []string{"auto", "force_generic_plan"} {
		for name, q := range queries {
			t.Run(mode+"/"+name, func(t *testing.T) {
				plan := explain(t, pool, mode, q, now)
				for _, bad := range []string{"Seq Scan", "time_slot"} {
					if strings.Contains(plan, bad) {
						t.Errorf("the plan has %q:\n%s", bad, plan)
					}
				}
				if !strings.Contains(plan, "ix_free_slot_doctor") {
					t.Errorf("the next free times do not come from ix_free_slot_doctor:\n%s", plan)
				}
			})
		}
	}
}

// fillDay writes the slots, doctors and practices in a few statements.
func fillDay(t *testing.T, pool *pgxpool.Pool, from time.Time) {
	t.Helper()
	d := directory{t, pool}
	d.exec(`INSERT INTO practice (id, name, street, postcode, city)
        SELECT p, 'Praxis ' || p, 'Markt ' || p, ((p * 2477) % 90000 + 10000)::text, 'Stadt ' || (p % 40)
        FROM generate_series(1, 400) p`)
	d.exec(`INSERT INTO doctor (id, name, specialty, practice_id)
        SELECT i, 'Dr. Müller ' || i, (ARRAY['allgemeinmedizin','hno','kardiologie','dermatologie','neurologie'])[i % 5 + 1], i % 400 + 1
        FROM generate_series(1, 2000) i`)
	d.exec(`INSERT INTO time_slot (doctor_id, start_at, end_at, capacity, booked_count, insurance)
        SELECT doc, s, s + interval '15 minutes', 1, (k % 10 = 0)::int, CASE WHEN k % 10 = 5 THEN 'PKV' END
        FROM generate_series(1, 2000) doc, generate_series(0, 13) day, generate_series(0, 39) k,
             LATERAL (SELECT $1::timestamptz + make_interval(days => day, hours => 3, mins => 15 * k) AS s) AS t`, from)
	d.exec(`INSERT INTO patient_contact (patient_id, insurance)
        SELECT p, (ARRAY['GKV','PKV','SELF'])[p % 3 + 1] FROM generate_series(1, 50000) p`)
	d.exec(`ANALYZE`)
	if n := countRows(t, pool, "time_slot"); n != planSlots {
		t.Fatalf("%d slots, want %d", n, planSlots)
	}
}

func countRows(t *testing.T, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// explain answers the plan of q's statement in plan_cache_mode mode, as
// the names of its nodes, relations and indexes, one node a line.
func explain(t *testing.T, pool *pgxpool.Pool, mode string, q find.Query, now time.Time) string {
	t.Helper()
	conn, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(t.Context(), "SET plan_cache_mode = "+mode); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(t.Context(), "RESET plan_cache_mode") //nolint:errcheck // the connection is a test's
	sql, args := postgres.SearchSQL(q, now)
	var raw []byte
	if err := conn.QueryRow(t.Context(), "EXPLAIN (FORMAT JSON) "+sql, args...).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal(raw, &plans); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	plans[0].Plan.write(&out, 0)
	return out.String()
}

// planNode is a node of EXPLAIN's JSON.
type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Plans    []planNode `json:"Plans"`
}

func (n planNode) write(b *strings.Builder, depth int) {
	fmt.Fprintf(b, "%s%s %s %s\n", strings.Repeat("  ", depth), n.NodeType, n.Relation, n.Index)
	for _, c := range n.Plans {
		c.write(b, depth+1)
	}
}
