package pglocal

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Probe connects to url and runs a ping within two seconds; nil means the
// server takes this login. The error tells a server that is not there from
// one that refuses the login (see AuthRefused).
func Probe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
}

// AuthRefused reports whether err is a server refusing the login (SQLSTATE
// class 28: a password is wanted, or the role may not log in), rather than no
// server answering. A stock PostgreSQL (scram-sha-256 on 127.0.0.1) answers a
// password-less probe this way.
func AuthRefused(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && strings.HasPrefix(pg.Code, "28")
}

// WithDatabase is url with its database (the path) replaced by name.
func WithDatabase(serverURL, name string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("pglocal: parse URL: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// EnsureDatabase creates the database name on the server of serverURL when it
// is missing and returns the URL that reaches it. Two callers racing to
// create it both succeed.
func EnsureDatabase(ctx context.Context, serverURL, name string) (string, error) {
	target, err := WithDatabase(serverURL, name)
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return "", fmt.Errorf("pglocal: connect to create database %s: %w", name, err)
	}
	defer conn.Close(context.Background())
	if exists, err := databaseExists(ctx, conn, name); err != nil || exists {
		return target, err
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	if err != nil {
		// A concurrent CREATE fails with duplicate_database or, when both
		// passed the catalog check at once, a unique violation: either way
		// the database is there.
		if exists, _ := databaseExists(ctx, conn, name); !exists {
			return "", fmt.Errorf("pglocal: create database %s: %w", name, err)
		}
	}
	return target, nil
}

func databaseExists(ctx context.Context, conn *pgx.Conn, name string) (bool, error) {
	var exists bool
	err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists)
	if err != nil {
		return false, fmt.Errorf("pglocal: look up database %s: %w", name, err)
	}
	return exists, nil
}

// CreateMissing creates the database that url names when the server answers
// that it does not exist, connecting to the server's postgres database to do
// so. Any other outcome of the probe is left to the caller's own connection
// (which may wait for a server still starting). It lets a DATABASE_URL name
// a database of its own that nobody has made yet.
func CreateMissing(ctx context.Context, dbURL string) error {
	var pg *pgconn.PgError
	if err := Probe(ctx, dbURL); !errors.As(err, &pg) || pg.Code != "3D000" { // invalid_catalog_name
		return nil
	}
	u, perr := url.Parse(dbURL)
	if perr != nil {
		return fmt.Errorf("pglocal: parse URL: %w", perr)
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin, perr := WithDatabase(dbURL, "postgres")
	if perr != nil {
		return perr
	}
	_, err := EnsureDatabase(ctx, admin, name)
	return err
}

// DropDatabase drops the database dbURL names, closing the connections open
// to it, connecting to the same server's postgres database to do so. It
// reports whether there was one to drop. It refuses the server's own
// databases (postgres, template0, template1): they are no application's to
// reset.
func DropDatabase(ctx context.Context, dbURL string) (bool, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return false, fmt.Errorf("pglocal: parse URL: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	switch name {
	case "", "postgres", "template0", "template1":
		return false, fmt.Errorf("pglocal: %q is the server's own database, not one to drop", name)
	}
	admin, err := WithDatabase(dbURL, "postgres")
	if err != nil {
		return false, err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return false, fmt.Errorf("pglocal: connect to drop database %s: %w", name, err)
	}
	defer conn.Close(context.Background())
	if exists, err := databaseExists(ctx, conn, name); err != nil || !exists {
		return false, err
	}
	// WITH (FORCE) (PostgreSQL 13 and later) ends the sessions still open on it.
	if _, err := conn.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return false, fmt.Errorf("pglocal: drop database %s: %w", name, err)
	}
	return true, nil
}
