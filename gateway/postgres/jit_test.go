package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/gateway/postgres"
	"termin/migrations/pgtest"
)

// TestConnectionsRunWithoutJIT: PostgreSQL compiles no statement of the gateway's
// connections to machine code (its default does once a plan's estimate is
// high, which cost an opening's batches more than their work), unless the URL
// asks for it.
func TestConnectionsRunWithoutJIT(t *testing.T) {
	pgtest.ConnectionsWithoutJIT(t, func(ctx context.Context, dbURL string) (*pgxpool.Pool, error) {
		return postgres.Open(ctx, dbURL, 8)
	})
}
