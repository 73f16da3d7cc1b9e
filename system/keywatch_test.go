package system_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// seenBooking is one booking request the gateway answered, as its log
// line tells it.
type seenBooking struct {
	key    string
	status int
	at     time.Time
}

// watchedPatient collects the booking answers of one watched patient.
type watchedPatient struct {
	mu   sync.Mutex
	seen []seenBooking
}

// keyWatch is the system's log handler in a test that needs to know what
// the server saw of a browser: for the watched patients it keeps the key
// and status of every booking the gateway answered (its "booking answered"
// line, written with the request's patient and key). A request logger of
// any other patient is made disabled where it is made, so a burst's
// thousands of requests cost next to nothing here; they are only counted.
// Errors go to stderr.
type keyWatch struct {
	watched  map[int64]*watchedPatient // fixed before the system starts
	bookings *atomic.Int64             // request loggers made with a key: bookings (and moves) received
	errs     slog.Handler
	attrs    []slog.Attr     // of this logger, for its error lines
	patient  *watchedPatient // a watched patient's request logger
	key      string
}

func newKeyWatch(patients ...int64) *keyWatch {
	w := &keyWatch{watched: map[int64]*watchedPatient{}, bookings: &atomic.Int64{},
		errs: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})}
	for _, p := range patients {
		w.watched[p] = &watchedPatient{}
	}
	return w
}

// Enabled lets through every line of a watched patient's request, and
// errors. The gateway asks its own logger before it makes a request's (it
// makes one only for a line), so that one lets every level through too.
func (w *keyWatch) Enabled(_ context.Context, level slog.Level) bool {
	return w.patient != nil || w.attrs == nil || level >= slog.LevelError
}

func (w *keyWatch) Handle(ctx context.Context, r slog.Record) error {
	if w.patient != nil && r.Message == "booking answered" {
		status := 0
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "status" {
				status = int(a.Value.Int64())
			}
			return true
		})
		w.patient.mu.Lock()
		w.patient.seen = append(w.patient.seen, seenBooking{key: w.key, status: status, at: r.Time})
		w.patient.mu.Unlock()
	}
	if r.Level < slog.LevelError {
		return nil
	}
	return w.errs.WithAttrs(w.attrs).Handle(ctx, r)
}

// WithAttrs notes a request logger's patient and key.
func (w *keyWatch) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *w
	c.attrs = append(slices.Clip(w.attrs), attrs...)
	for _, a := range attrs {
		switch {
		case a.Key == "patient" && a.Value.Kind() == slog.KindInt64:
			c.patient = w.watched[a.Value.Int64()]
		case a.Key == "key" && a.Value.Kind() == slog.KindString:
			c.key = a.Value.String()
			w.bookings.Add(1)
		}
	}
	return &c
}

func (w *keyWatch) WithGroup(string) slog.Handler { return w }

// received is how many bookings the gateways have received, any patient's.
func (w *keyWatch) received() int64 { return w.bookings.Load() }

// answers are the bookings of the patient the gateway answered, in order.
func (w *keyWatch) answers(patient int64) []seenBooking {
	p := w.watched[patient]
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// distinctKeys are the keys among answers, each once, in the order first seen.
func distinctKeys(seen []seenBooking) []string {
	var out []string
	for _, s := range seen {
		if !slices.Contains(out, s.key) {
			out = append(out, s.key)
		}
	}
	return out
}

func answerStatuses(seen []seenBooking) []int {
	out := make([]int, len(seen))
	for i, s := range seen {
		out[i] = s.status
	}
	return out
}
