// Package migrations holds the numbered SQL files that create the booking schema
// and applies them with goose. The files are embedded so that every binary and
// every test migrates with exactly the same SQL.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed *.sql
var files embed.FS

// Up applies every pending migration to the database at url. It holds a
// PostgreSQL advisory lock while it works, so several bookers starting at once
// migrate one after the other and the later ones find nothing left to do.
// A file numbered below one already applied (work that landed later than a
// higher number) is applied as well rather than refused.
func Up(ctx context.Context, url string) error {
	db, err := openDB(url)
	if err != nil {
		return err
	}
	defer db.Close()
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migrations: locker: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, files,
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrations: up: %w", err)
	}
	for _, r := range results {
		slog.Debug("migration applied", "version", r.Source.Version, "took", r.Duration)
	}
	return nil
}

// Pending reports whether migrations remain to be applied, which lets the
// gateway wait for the booker instead of racing it.
func Pending(ctx context.Context, url string) (bool, error) {
	db, err := openDB(url)
	if err != nil {
		return false, err
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, files, goose.WithDisableGlobalRegistry(true),
		goose.WithAllowOutofOrder(true))
	if err != nil {
		return false, fmt.Errorf("migrations: %w", err)
	}
	return p.HasPending(ctx)
}

func openDB(url string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("migrations: database url: %w", err)
	}
	return stdlib.OpenDB(*cfg), nil
}
