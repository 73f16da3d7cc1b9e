package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Querier is what the seeding helpers need of a pool, a connection or a
// transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// SlotMinutes is the length of a slot InsertSlot makes.
const SlotMinutes = 15

// InsertSlot inserts a slot of the doctor starting at startAt, SlotMinutes
// long, open now, and returns its id. It names only the seed's columns, as an
// operator's script would, so the schema's defaults are exercised too.
func InsertSlot(t testing.TB, db Querier, doctorID int64, startAt time.Time, capacity int) int64 {
	t.Helper()
	var id int64
	err := db.QueryRow(context.Background(), `
        INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
        VALUES ($1, $2, $3, $4) RETURNING id`,
		doctorID, startAt, startAt.Add(SlotMinutes*time.Minute), capacity).Scan(&id)
	if err != nil {
		t.Fatalf("pgtest: insert slot: %v", err)
	}
	return id
}

// QueryInt runs a query whose answer is one integer (a count, a column) and
// fails the test when it cannot.
func QueryInt(t testing.TB, db Querier, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
	return n
}

// CurrentDatabase is the name of the database url leads to.
func CurrentDatabase(t testing.TB, url string) string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(context.Background())
	var name string
	if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&name); err != nil {
		t.Fatalf("pgtest: current database: %v", err)
	}
	return name
}
