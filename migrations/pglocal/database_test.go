package pglocal_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"termin/migrations/pglocal"
	"termin/migrations/pgtest"
)

// TestProbeTellsRefusedLoginFromNoServer: a server that wants a password (as
// Debian's stock scram-sha-256 does on 127.0.0.1) is told apart from a port
// where nothing listens, so `make run` can say why it does not use it.
func TestProbeTellsRefusedLoginFromNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go refuseLogins(ln)
	ctx := context.Background()
	err = pglocal.Probe(ctx, fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", ln.Addr()))
	if err == nil || !pglocal.AuthRefused(err) {
		t.Fatalf("probe of a password-only server = %v; want a refused login", err)
	}
	closed := freeAddr(t)
	err = pglocal.Probe(ctx, fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", closed))
	if err == nil || pglocal.AuthRefused(err) {
		t.Fatalf("probe of a closed port = %v; want an error that is not a refused login", err)
	}
}

// refuseLogins answers every startup as a password-only server answers a
// client without the right password.
func refuseLogins(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			be := pgproto3.NewBackend(conn, conn)
			if _, err := be.ReceiveStartupMessage(); err != nil {
				return
			}
			be.Send(&pgproto3.AuthenticationCleartextPassword{})
			if err := be.Flush(); err != nil {
				return
			}
			be.SetAuthType(pgproto3.AuthTypeCleartextPassword)
			if _, err := be.Receive(); err != nil {
				return
			}
			be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "28P01",
				Message: `password authentication failed for user "postgres"`})
			_ = be.Flush()
		}()
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestEnsureDatabaseCreatesItOnce: callers racing on a missing database all
// get a URL that reaches it, and a later call finds it.
func TestEnsureDatabaseCreatesItOnce(t *testing.T) {
	admin := pgtest.URL(t)
	name := fmt.Sprintf("ensure_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	ctx := context.Background()
	t.Cleanup(func() { dropDatabase(t, admin, name) })
	var wg sync.WaitGroup
	urls := make([]string, 8)
	errs := make([]error, 8)
	for i := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			urls[i], errs[i] = pglocal.EnsureDatabase(ctx, admin, name)
		}()
	}
	wg.Wait()
	for i := range urls {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if got := pgtest.CurrentDatabase(t, urls[i]); got != name {
			t.Fatalf("caller %d reached database %q; want %q", i, got, name)
		}
	}
	again, err := pglocal.EnsureDatabase(ctx, admin, name)
	if err != nil || again != urls[0] {
		t.Fatalf("second call = %q, %v; want %q", again, err, urls[0])
	}
}

func dropDatabase(t *testing.T, admin, name string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
}

// TestCreateMissingMakesTheNamedDatabase: a URL naming a database nobody has
// made yet gets it; a second call and a URL that works change nothing.
func TestCreateMissingMakesTheNamedDatabase(t *testing.T) {
	admin := pgtest.URL(t)
	name := fmt.Sprintf("missing_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() { dropDatabase(t, admin, name) })
	target, err := pglocal.WithDatabase(admin, name)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := pglocal.CreateMissing(context.Background(), target); err != nil {
			t.Fatalf("CreateMissing: %v", err)
		}
		if got := pgtest.CurrentDatabase(t, target); got != name {
			t.Fatalf("reached %q, want %q", got, name)
		}
	}
}

// TestDropDatabase drops a database with a session still open on it, says
// there is none the second time, and refuses the server's own databases.
func TestDropDatabase(t *testing.T) {
	dbURL := pgtest.URL(t)
	ctx := context.Background()
	open, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close(ctx)
	if dropped, err := pglocal.DropDatabase(ctx, dbURL); err != nil || !dropped {
		t.Fatalf("first drop: %v, %v; want it dropped", dropped, err)
	}
	if pglocal.Reachable(ctx, dbURL) {
		t.Error("the database still answers after the drop")
	}
	if dropped, err := pglocal.DropDatabase(ctx, dbURL); err != nil || dropped {
		t.Errorf("second drop: %v, %v; want nothing to drop", dropped, err)
	}
	for _, name := range []string{"postgres", "template1", ""} {
		own, err := pglocal.WithDatabase(dbURL, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pglocal.DropDatabase(ctx, own); err == nil {
			t.Errorf("drop of %q allowed", name)
		}
	}
}
