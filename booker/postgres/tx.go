package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// querier is what a batch asks of the connection its transaction runs on:
// a pooled connection whose BEGIN went out with the batch's first read
// (inTx), a warming connection, or a pgx.Tx (ExpireHolds).
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// beginSQL opens a batch's transaction in the same round trip as its first
// statements (batch.read), so that opening it costs no round trip of its
// own: at 7:00, with the booker sharing the cores with thousands of
// requests, each round trip is also a wait for the scheduler.
const beginSQL = "begin"

// inTx runs fn on a pooled connection, whose transaction fn opens with
// beginSQL in its first round trip, and commits what fn leaves open. A
// failure rolls back; a connection left in a transaction (the rollback
// failed too) is closed by the pool on release, never reused.
func inTx(ctx context.Context, pool *pgxpool.Pool, fn func(querier) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if err := fn(conn); err != nil {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			_, _ = conn.Exec(ctx, "rollback")
		}
		return err
	}
	tag, err := conn.Exec(ctx, "commit")
	if err != nil {
		return err
	}
	if tag.String() != "COMMIT" { // the transaction had failed: PostgreSQL rolled it back
		return fmt.Errorf("postgres: commit: %w", pgx.ErrTxCommitRollback)
	}
	return nil
}

// Deadlocks and serialization failures are possible, and harmless, between
// transactions that lock one doctor's slots in different orders; PostgreSQL
// aborts one, and it is run again.
const (
	codeDeadlock      = "40P01"
	codeSerialization = "40001"
)

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == codeDeadlock || pgErr.Code == codeSerialization)
}
