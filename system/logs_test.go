package system_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"termin/booker/jetstream"
	"termin/migrations/pgtest"
	"termin/shared/poll"
	"termin/system"
)

// syncBuffer is a log sink shared by the gateway's and the booker's loggers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lines returns the JSON log lines written so far.
func (b *syncBuffer) lines() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// TestRequestIDFollowsABookingThroughTheLogs sends a booking with an
// X-Request-Id and finds that id, with the patient's key, on the gateway's and
// the booker's log lines of that booking, and the id echoed on the answer.
func TestRequestIDFollowsABookingThroughTheLogs(t *testing.T) {
	t.Parallel()
	db, dbURL := pgtest.Pool(t, 4)
	ns, err := system.StartNATS(t.TempDir(), server.RANDOM_PORT)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	var sink syncBuffer
	log := slog.New(slog.NewJSONHandler(&sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
	startBookerOn(t, dbURL, ns.ClientURL(), jetstream.DefaultConfig(), log)
	s := &stack{t: t, dbURL: dbURL, db: db, http: &http.Client{Timeout: 10 * time.Second},
		gateway: startGatewayOn(t, dbURL, ns.ClientURL(), log)}
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)

	if got := postWithRequestID(t, s, slot, 77, "log-key-1", "trace-e2e-1"); got != "trace-e2e-1" {
		t.Errorf("X-Request-Id echoed %q, want the client's", got)
	}
	if got := postWithRequestID(t, s, slot, 78, "log-key-2", "not a sane id!"); got == "" || strings.Contains(got, " ") {
		t.Errorf("X-Request-Id for an insane one = %q, want a fresh id", got)
	}
	want := map[string]bool{"booking answered": false, "command decided": false}
	poll.For(t, 5*time.Second, 20*time.Millisecond, func() error {
		for _, line := range sink.lines() {
			if line["request_id"] != "trace-e2e-1" {
				continue
			}
			if line["key"] != "log-key-1" {
				t.Fatalf("a line of request trace-e2e-1 lacks its key: %v", line)
			}
			if _, ok := want[line["msg"].(string)]; ok {
				want[line["msg"].(string)] = true
			}
		}
		if !want["booking answered"] || !want["command decided"] {
			return fmt.Errorf("lines of request trace-e2e-1 seen: %v", want)
		}
		return nil
	})
}

// postWithRequestID books and returns the X-Request-Id of the answer.
func postWithRequestID(t *testing.T, s *stack, slot, patient int64, key, rid string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", s.gateway.URL()+"/api/appointments", bytes.NewReader(bookBody(slot, patient)))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("X-Request-Id", rid)
	resp, err := s.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("X-Request-Id")
}
