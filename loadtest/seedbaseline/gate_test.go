package seedbaseline_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"termin/loadtest/seedbaseline"
	"termin/migrations/pgtest"
)

// startRedis starts a redis-server of the test's own on a free port (no
// persistence) and returns a client of it.
func startRedis(t *testing.T) *redis.Client {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server not found: run `make prereqs`")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port)})
	t.Cleanup(func() { rdb.Close() })
	deadline := time.Now().Add(10 * time.Second)
	for rdb.Ping(t.Context()).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d did not answer within 10 s", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return rdb
}

func startGated(t *testing.T) (*pgxpool.Pool, *redis.Client, string) {
	t.Helper()
	db, _ := pgtest.Pool(t, 10)
	rdb := startRedis(t)
	srv := httptest.NewServer(seedbaseline.NewDesign(db, nil, &seedbaseline.Gate{Redis: rdb, Prefix: "t:"}))
	t.Cleanup(srv.Close)
	return db, rdb, srv.URL
}

// TestSeedGateRefusesAKnownFullSlotInRedis: the refusal of a full slot is
// marked in Redis, and the next request for it is refused from there, even
// after the database freed the place (as the seed's 30 s mark allows).
func TestSeedGateRefusesAKnownFullSlotInRedis(t *testing.T) {
	db, rdb, url := startGated(t)
	slot := newSlot(t, db, 1)
	if a := book(t, url, slot, 1, "k1"); a.status != http.StatusCreated {
		t.Fatalf("first booking: %d %s", a.status, a.code)
	}
	if a := book(t, url, slot, 2, "k2"); a.status != http.StatusConflict || a.code != "SLOT_FULL" {
		t.Fatalf("second booking: %d %s, want 409 SLOT_FULL", a.status, a.code)
	}
	if ttl := rdb.TTL(t.Context(), fmt.Sprintf("t:slot:full:%d", slot)).Val(); ttl <= 0 || ttl > seedbaseline.FullFor {
		t.Fatalf("full mark's TTL %s, want within (0, %s]", ttl, seedbaseline.FullFor)
	}
	if _, err := db.Exec(context.Background(), `UPDATE time_slot SET booked_count = 0 WHERE id = $1`, slot); err != nil {
		t.Fatal(err)
	}
	if a := book(t, url, slot, 3, "k3"); a.status != http.StatusConflict || a.code != "SLOT_FULL" {
		t.Fatalf("booking after the mark: %d %s, want 409 SLOT_FULL from Redis", a.status, a.code)
	}
	var n int
	if err := db.QueryRow(context.Background(), `SELECT count(*) FROM appointment WHERE slot_id = $1`, slot).Scan(&n); err != nil || n != 1 {
		t.Fatalf("appointments of the slot: %d (%v), want 1: the gate let a request through", n, err)
	}
}

// TestSeedGateLimitsAPatientsAttempts: five attempts in the window reach
// the database, the sixth is refused with 429 and a Retry-After.
func TestSeedGateLimitsAPatientsAttempts(t *testing.T) {
	db, _, url := startGated(t)
	slots := make([]int64, seedbaseline.AttemptsPerWindow+1)
	if err := db.QueryRow(context.Background(), `WITH n AS (INSERT INTO time_slot (doctor_id, start_at, end_at, capacity)
            SELECT 43, s, s + interval '15 minutes', 1 FROM generate_series(now() + interval '1 day', now() + interval '1 day' + $1 * interval '15 minutes', interval '15 minutes') s
            RETURNING id) SELECT array_agg(id ORDER BY id) FROM n`, len(slots)-1).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	for i, slot := range slots[:seedbaseline.AttemptsPerWindow] {
		if a := book(t, url, slot, 7, fmt.Sprintf("k%d", i)); a.status != http.StatusCreated {
			t.Fatalf("attempt %d: %d %s, want 201", i+1, a.status, a.code)
		}
	}
	slot := slots[seedbaseline.AttemptsPerWindow]
	if a := book(t, url, slot, 7, "k-over"); a.status != http.StatusTooManyRequests || a.code != "RATE_LIMITED" {
		t.Fatalf("attempt %d: %d %s, want 429 RATE_LIMITED", seedbaseline.AttemptsPerWindow+1, a.status, a.code)
	}
	if a := book(t, url, slot, 8, "k-other"); a.status != http.StatusCreated {
		t.Fatalf("another patient: %d %s, want 201", a.status, a.code)
	}
}
