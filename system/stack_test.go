package system_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/booker"
	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/gateway"
	gatewayapp "termin/gateway/app"
	gwhttp "termin/gateway/http"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/clocktest"
	"termin/system"
)

var berlin, _ = time.LoadLocation("Europe/Berlin")

const replyBudget = 500 * time.Millisecond

// testLotterySecret is the lottery secret of every stack's gateways.
const testLotterySecret = "system test lottery secret"

// noAuth is the gateway's authentication in tests that are not about it.
var noAuth = gwhttp.AuthConfig{Disabled: true}

// stack is one booking system in this test: a fresh database, the
// nats-server at TEST_NATS_URL or an in-process one, a booker and a gateway,
// each on a free port. Its NATS names live in a namespace of its own.
type stack struct {
	t       *testing.T
	dbURL   string
	db      *pgxpool.Pool
	ns      *server.Server // nil on the server at TEST_NATS_URL
	natsDir string         // the in-process server's store
	natsURL string
	space   shared.Namespace
	clock   shared.Clock // every part's now: TEST_CLOCK's instant, or the wall clock's
	booker  *bookerapp.App
	gateway *gatewayapp.App
	http    *http.Client
	posts   atomic.Int64 // booking requests sent by bookUntilDecided, repeats included
	// later, when set, holds the answers for a check after a timed burst
	// (laterChecks) instead of checking each as it comes.
	later *laterChecks
}

// startBound bounds starting a whole system that migrates its database
// and seeds the demo: seconds on an idle machine, but 86 s once under the
// whole suite beside stress-ng and other work on two cores. Longer than
// this is a hang, not load.
const startBound = 3 * time.Minute

func newStack(t *testing.T) *stack {
	t.Helper()
	return newStackOn(t, os.Getenv("TEST_NATS_URL"), clocktest.New(t))
}

// newStackOwnNATS is a stack on an in-process nats-server even when
// TEST_NATS_URL is set: for a test that stops the server.
func newStackOwnNATS(t *testing.T) *stack {
	t.Helper()
	return newStackOn(t, "", clocktest.New(t))
}

// newStackOn is a stack on the nats-server at natsURL (an in-process one
// when empty) whose parts all take their now from clock.
func newStackOn(t *testing.T, natsURL string, clock shared.Clock) *stack {
	t.Helper()
	db, dbURL := pgtest.Pool(t, 4)
	s := &stack{t: t, dbURL: dbURL, db: db, natsURL: natsURL, http: &http.Client{Timeout: 10 * time.Second},
		space: shared.Namespace(fmt.Sprintf("t%016x", rand.Uint64())), clock: clock}
	if s.natsURL == "" {
		s.natsDir = t.TempDir()
		ns, err := system.StartNATS(s.natsDir, server.RANDOM_PORT)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ns.Shutdown)
		s.ns, s.natsURL = ns, ns.ClientURL()
	}
	t.Cleanup(s.removeNamespace)
	s.startBooker(nil, nil)
	s.gateway = s.startGateway()
	return s
}

// startGateway starts one more gateway on the same NATS and database.
func (s *stack) startGateway() *gatewayapp.App {
	s.t.Helper()
	return s.startGatewayWith(nil)
}

// startGatewayWith starts one more gateway whose configuration adjust may
// change first.
func (s *stack) startGatewayWith(adjust func(*gatewayapp.Config)) *gatewayapp.App {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	room := gateway.DefaultRoomConfig()
	room.Secret = testLotterySecret // common to the stack's gateways, as in a deployment
	cfg := gatewayapp.Config{
		Addr: "127.0.0.1:0", DatabaseURL: s.dbURL, NATSURL: s.natsURL, Zone: berlin,
		ReplyBudget: replyBudget, PublishTimeout: 300 * time.Millisecond, PackWait: gatewayapp.DefaultPackWait, ReadConns: 4,
		Namespace: s.space, SubjectPrefix: "booking", Logger: quietLogger(), Auth: noAuth,
		RateLimit: 5, RateWindow: 10 * time.Second, Room: room, ListTTL: 2 * time.Second, Clock: s.clock,
	}
	if adjust != nil {
		adjust(&cfg)
	}
	gw, err := gatewayapp.Start(ctx, cfg)
	if err != nil {
		s.t.Fatalf("start gateway: %v", err)
	}
	s.t.Cleanup(func() { shutdown(gw.Shutdown) })
	return gw
}

// startBooker starts a booker; decorate may wrap its decision core, and
// stream, when set, replaces the queue's bounds.
func (s *stack) startBooker(decorate func(booker.Service) booker.Service, stream *jetstream.Config) *bookerapp.App {
	s.t.Helper()
	if stream == nil {
		def := jetstream.DefaultConfig()
		def.AckWait = 2 * time.Second // a killed booker's commands come back quickly
		stream = &def
	}
	return s.startBookerWith(bookerapp.Config{
		DatabaseURL: s.dbURL, NATSURL: s.natsURL, Addr: "127.0.0.1:0", Zone: berlin,
		Workers: 4, BatchSize: 50, BatchWait: 2 * time.Millisecond, DBConns: 10, Migrate: true, Stream: *stream, Logger: quietLogger(), Decorate: decorate,
	})
}

// startBookerWith starts a booker with cfg in the stack's namespace,
// stopped when the test ends.
func (s *stack) startBookerWith(cfg bookerapp.Config) *bookerapp.App {
	s.t.Helper()
	cfg.Stream.Namespace = s.space
	if cfg.Clock == nil {
		cfg.Clock = s.clock
	}
	a, err := bookerapp.Start(context.Background(), cfg)
	if err != nil {
		s.t.Fatalf("start booker: %v", err)
	}
	s.t.Cleanup(func() { shutdown(a.Shutdown) })
	s.booker = a
	return a
}

// now is the stack's present, from which a test takes its dates.
func (s *stack) now() time.Time { return s.clock.Now() }

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func (s *stack) slot(doctorID int64, startAt time.Time, capacity int) int64 {
	s.t.Helper()
	return pgtest.InsertSlot(s.t, s.db, doctorID, startAt, capacity)
}

func (s *stack) queryInt(sql string, args ...any) int {
	s.t.Helper()
	return pgtest.QueryInt(s.t, s.db, sql, args...)
}

// answer is one HTTP response, decoded.
type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func (a answer) code() string { s, _ := a.body["code"].(string); return s }
func (a answer) id() int64    { f, _ := a.body["id"].(float64); return int64(f) }

func (s *stack) do(method, path, key string, body []byte) (answer, error) {
	return s.doAt(s.gateway, method, path, key, body)
}

// doAt sends a request to the given gateway; unlike postVia it may run
// beside other requests.
func (s *stack) doAt(gw *gatewayapp.App, method, path, key string, body []byte) (answer, error) {
	req, err := http.NewRequest(method, gw.URL()+path, bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return s.send(req)
}

// send sends req and decodes the answer, which must match openapi.yaml.
func (s *stack) send(req *http.Request) (answer, error) {
	resp, err := s.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if s.later != nil {
		s.later.hold(req, resp.StatusCode, resp.Header, raw)
	} else {
		checkAPI(s.t, req, resp.StatusCode, resp.Header, raw)
	}
	a := answer{status: resp.StatusCode, header: resp.Header}
	_ = json.Unmarshal(raw, &a.body)
	return a, nil
}

// mustDo sends a request and, as a client does, repeats it while it is
// answered 202 (queued: the decision comes on a repeat), so that a test sees
// the decision however long the suite's load keeps the booker; mustDoOnce
// is for a test about the 202 itself.
func (s *stack) mustDo(method, path, key string, body []byte) answer {
	s.t.Helper()
	return s.decided(func() (answer, error) { return s.do(method, path, key, body) })
}

// mustDoOnce sends one request and returns its answer, 202 included.
func (s *stack) mustDoOnce(method, path, key string, body []byte) answer {
	s.t.Helper()
	a, err := s.do(method, path, key, body)
	if err != nil {
		s.t.Fatal(err)
	}
	return a
}

// decisionWait bounds how long mustDo repeats a queued request. On an idle
// machine a decision takes milliseconds; under the whole suite beside a CPU
// hog, seconds. A booker that never decides still fails the test.
const decisionWait = 30 * time.Second

// decided calls send again while the answer is 202, after a quarter of its
// Retry-After, for at most decisionWait, and fails the test on an error.
func (s *stack) decided(send func() (answer, error)) answer {
	s.t.Helper()
	deadline := time.Now().Add(decisionWait)
	for {
		a, err := send()
		if err != nil {
			s.t.Fatal(err)
		}
		if a.status != http.StatusAccepted || time.Now().After(deadline) {
			return a
		}
		wait, _ := strconv.Atoi(a.header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second / 4)
	}
}

func bookBody(slotID, patientID int64) []byte {
	return fmt.Appendf(nil, `{"slotId":%d,"patientId":%d}`, slotID, patientID)
}

// bookUntilDecided sends a booking to the stack's gateway and repeats it with
// the same key until decided (untilDecided), waiting a quarter of each
// Retry-After: that keeps the test short, and the order stays honest.
func (s *stack) bookUntilDecided(slotID, patientID int64, key string, limit time.Duration) (first, final answer, err error) {
	return untilDecided(func() (answer, error) {
		s.posts.Add(1)
		return s.do("POST", "/api/appointments", key, bookBody(slotID, patientID))
	}, limit, 4)
}

// untilDecided is the tests' one client that repeats a booking until it is
// decided, as a real client does: it calls send (one request, the same key
// each time) again while the answer is 202 or 503, after each Retry-After
// divided by hurry (1 waits it in full), until limit has passed. first is
// the first answer, final the last.
func untilDecided(send func() (answer, error), limit time.Duration, hurry int) (first, final answer, err error) {
	deadline := time.Now().Add(limit)
	for {
		a, err := send()
		if err != nil {
			return first, a, err
		}
		if first.status == 0 {
			first = a
		}
		if (a.status != http.StatusAccepted && a.status != http.StatusServiceUnavailable) || time.Now().After(deadline) {
			return first, a, nil
		}
		wait, _ := strconv.Atoi(a.header.Get("Retry-After"))
		time.Sleep(time.Duration(max(wait, 1)) * time.Second / time.Duration(hurry))
	}
}

// shutdown gives a part five seconds to stop; a test must not hang on a part
// whose broker was stopped on purpose.
func shutdown(stop func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = stop(ctx)
}

// removeNamespace deletes the stack's streams and buckets, so that a shared
// server at TEST_NATS_URL keeps nothing of the test.
func (s *stack) removeNamespace() {
	nc, err := nats.Connect(s.natsURL, nats.Timeout(time.Second))
	if err != nil {
		return // an in-process server stopped by the test took them along
	}
	defer nc.Close()
	js, _ := natsjs.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var owned []string
	names := js.StreamNames(ctx)
	for name := range names.Name() {
		if s.space.Owns(name) {
			owned = append(owned, name)
		}
	}
	for _, name := range owned {
		if err := js.DeleteStream(ctx, name); err != nil {
			s.t.Logf("removing stream %s: %v", name, err)
		}
	}
}
