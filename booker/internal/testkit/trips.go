package testkit

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"termin/migrations/pgtest"
)

// Trips counts the round trips a pool's connections make to PostgreSQL:
// each query and each batch of queries is one.
type Trips struct{ n atomic.Int64 }

// Count is the number of round trips since the pool opened or the last Reset.
func (c *Trips) Count() int64 { return c.n.Load() }

// Reset starts the count again.
func (c *Trips) Reset() { c.n.Store(0) }

// TraceQueryStart implements pgx.QueryTracer.
func (c *Trips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (c *Trips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer.
func (c *Trips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (c *Trips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (c *Trips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// CountedPool opens a pool of at most maxConns connections to url whose
// round trips are counted, closed when the test ends.
func CountedPool(t testing.TB, url string, maxConns int32) (*pgxpool.Pool, *Trips) {
	t.Helper()
	trips := &Trips{}
	pool := pgtest.Open(t, url, maxConns, func(cfg *pgxpool.Config) { cfg.ConnConfig.Tracer = trips })
	return pool, trips
}
