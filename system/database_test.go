package system_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/gateway"
	gatewayapp "termin/gateway/app"
	"termin/migrations/pglocal"
	"termin/migrations/pgtest"
	"termin/system"
)

// TestPrivateClusterWhenLocalServerWantsPassword: a local server that wants
// a password (Debian's stock scram-sha-256) is named in a warning that says
// how to use it, the system runs on database termin of a private cluster,
// and stopping the system stops the cluster.
func TestPrivateClusterWhenLocalServerWantsPassword(t *testing.T) {
	t.Parallel()
	dir := clusterDir(t)
	logs := &syncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sys, err := system.Start(ctx, system.Config{
		LocalURL: "postgres://postgres@" + passwordOnlyServer(t) + "/postgres?sslmode=disable",
		DataDir:  dir, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Booker: bookerapp.Config{Addr: "127.0.0.1:0", Zone: berlin, Workers: 1, BatchSize: 50,
			BatchWait: 2 * time.Millisecond, DBConns: 2, Migrate: true, Stream: jetstream.DefaultConfig()},
		Gateway: gatewayapp.Config{Addr: "127.0.0.1:0", Zone: berlin, ReplyBudget: replyBudget,
			PublishTimeout: 300 * time.Millisecond, ReadConns: 2, SubjectPrefix: "booking", Auth: noAuth,
			RateLimit: 5, RateWindow: 10 * time.Second, Room: gateway.DefaultRoomConfig(), ListTTL: 2 * time.Second},
	})
	if err != nil {
		t.Fatalf("start system: %v", err)
	}
	t.Cleanup(func() { shutdown(sys.Shutdown) })
	if !warned(logs, "refuses a password-less login", "DATABASE_URL=postgres://USER:PASSWORD@") {
		t.Errorf("no warning naming the refused login and DATABASE_URL; logs: %v", logs.lines())
	}
	if !strings.Contains(sys.Database, "private cluster") {
		t.Errorf("Database = %q, want it to name the private cluster", sys.Database)
	}
	if got := pgtest.CurrentDatabase(t, sys.DatabaseURL); got != system.DatabaseName {
		t.Errorf("the system uses database %q, want %q", got, system.DatabaseName)
	}
	if err := sys.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if pglocal.Reachable(ctx, sys.DatabaseURL) {
		t.Error("the private cluster still answers after the system stopped")
	}
}

// passwordOnlyServer listens on a free port and answers every login as a
// server that wants a password answers a client without one.
func passwordOnlyServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			be := pgproto3.NewBackend(conn, conn)
			if _, err := be.ReceiveStartupMessage(); err == nil {
				be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "28P01",
					Message: `password authentication failed for user "postgres"`})
				_ = be.Flush()
			}
			conn.Close()
		}
	}()
	return ln.Addr().String()
}

func warned(logs *syncBuffer, parts ...string) bool {
	for _, l := range logs.lines() {
		msg, _ := l["msg"].(string)
		if l["level"] != "WARN" {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(msg, p)
		}
		if all {
			return true
		}
	}
	return false
}
