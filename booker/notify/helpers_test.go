package notify_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"termin/booker"
	"termin/booker/internal/testkit"
	"termin/booker/notify"
	"termin/booker/outbox"
	"termin/booker/postgres"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/poll"
)

var (
	berlin, _ = time.LoadLocation("Europe/Berlin")
	// testNow is the store's clock; the slots of these tests lie after it.
	testNow = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	winter  = time.Date(2031, 3, 10, 8, 30, 0, 0, time.UTC) // Mon 09:30 CET
	summer  = time.Date(2031, 7, 14, 7, 0, 0, 0, time.UTC)  // Mon 09:00 CEST
)

// practice is the notifier's practice in these tests.
var practice = notify.Practice{Name: "Praxis Am Markt", Address: "Marktplatz 1, 10115 Berlin",
	PublicURL: "https://termine.example/", From: from}

const (
	smsToken = "test-token"
	from     = "termine@praxis.example"
)

// env is one notifier at work: a fresh database, a nats-server, a relay, a
// notifier, an SMTP server and an SMS webhook.
type env struct {
	t       *testing.T
	db      *pgxpool.Pool
	nc      *nats.Conn
	js      jetstream.JetStream
	ns      shared.Namespace
	cons    jetstream.Consumer
	store   *postgres.Store
	mail    *testkit.MailServer
	sms     *testkit.SMSServer
	metrics *notify.Metrics
}

// newEnv starts everything; maxDeliver is the notifier's attempts, with 20 ms
// as the first retry's delay.
func newEnv(t *testing.T, maxDeliver int) *env {
	t.Helper()
	db, _ := pgtest.Pool(t, 16)
	nc, js, ns := testkit.NATS(t)
	e := &env{t: t, db: db, nc: nc, js: js, ns: ns, mail: testkit.StartMail(t), sms: testkit.StartSMS(t),
		metrics: notify.NewMetrics(prometheus.NewRegistry())}
	e.doctor(42, "Dr. Weber")
	e.store = postgres.NewStore(db)
	e.store.Now = func() time.Time { return testNow }
	e.cons = setupStreams(t, js, ns)
	relay := &outbox.Relay{DB: db, JS: js, Namespace: ns, Log: testLogger(), Idle: 20 * time.Millisecond}
	n := &notify.Notifier{DB: db, JS: js, Consumer: e.cons, Namespace: ns, Zone: berlin, MaxDeliver: maxDeliver,
		RetryBase: 20 * time.Millisecond, Metrics: e.metrics, Log: testLogger(),
		Mail: &notify.SMTP{Addr: e.mail.Addr, From: from}, Practice: practice,
		Doctors: &notify.DoctorCache{DB: db},
		SMS:     &notify.Webhook{URL: e.sms.URL, Token: smsToken}}
	run(t, relay.Run)
	run(t, n.Run)
	return e
}

// setupStreams makes the EVENTS stream and the notifier's consumer on it.
func setupStreams(t *testing.T, js jetstream.JetStream, ns shared.Namespace) jetstream.Consumer {
	t.Helper()
	ctx := context.Background()
	if _, err := outbox.Setup(ctx, js, ns, 1); err != nil {
		t.Fatal(err)
	}
	cons, err := notify.Setup(ctx, js, ns, 1)
	if err != nil {
		t.Fatal(err)
	}
	return cons
}

// run runs fn in the background until the test ends.
func run(t *testing.T, fn func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := fn(ctx); err != nil {
			t.Errorf("background: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

func testLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// contact writes a patient's contact row; empty email or phone is NULL.
func (e *env) contact(patientID int64, name, email, phone, lang string) {
	e.t.Helper()
	_, err := e.db.Exec(context.Background(), `
        INSERT INTO patient_contact (patient_id, name, email, phone, language)
        VALUES ($1, $2, NULLIF($3, ''), NULLIF($4, ''), $5)`, patientID, name, email, phone, lang)
	if err != nil {
		e.t.Fatalf("insert contact: %v", err)
	}
}

// doctor names a doctor.
func (e *env) doctor(id int64, name string) {
	e.t.Helper()
	if _, err := e.db.Exec(context.Background(), `INSERT INTO doctor (id, name) VALUES ($1, $2)`, id, name); err != nil {
		e.t.Fatalf("doctor %d: %v", id, err)
	}
}

func (e *env) slot(doctorID int64, startAt time.Time, capacity int) int64 {
	e.t.Helper()
	return pgtest.InsertSlot(e.t, e.db, doctorID, startAt, capacity)
}

// book books through the store, as the booker does; err is the refusal, if any.
func (e *env) book(slotID, patientID int64, key string) (booker.Booking, error) {
	e.t.Helper()
	return e.store.Book(context.Background(), booker.BookRequest{SlotID: slotID, PatientID: patientID, IdempotencyKey: key})
}

func (e *env) mustBook(slotID, patientID int64) booker.Booking {
	e.t.Helper()
	b, err := e.book(slotID, patientID, fmt.Sprintf("k-%d-%d", slotID, patientID))
	if err != nil {
		e.t.Fatalf("book slot %d for %d: %v", slotID, patientID, err)
	}
	return b
}

func (e *env) queryInt(sql string, args ...any) int {
	e.t.Helper()
	return pgtest.QueryInt(e.t, e.db, sql, args...)
}

// waitIdle waits until every outbox row is published and the notifier has
// settled every event (none pending, none awaiting its ack): from then on
// nothing more will be sent, so counts can be compared exactly.
func (e *env) waitIdle() {
	e.t.Helper()
	poll.For(e.t, 20*time.Second, 20*time.Millisecond, func() error {
		if n := e.queryInt(`SELECT count(*) FROM outbox_event WHERE published_at IS NULL`); n > 0 {
			return fmt.Errorf("%d outbox rows unpublished", n)
		}
		return testkit.Settled(e.cons)
	})
}

// waitMails waits for n e-mails, then for the notifier to settle, and returns them.
func (e *env) waitMails(n int) []testkit.Mail {
	e.t.Helper()
	poll.For(e.t, 20*time.Second, 20*time.Millisecond, func() error {
		if got := len(e.mail.Mails()); got < n {
			return fmt.Errorf("%d e-mails, want %d", got, n)
		}
		return nil
	})
	e.waitIdle()
	return e.mail.Mails()
}
