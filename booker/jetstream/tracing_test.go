package jetstream_test

import (
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"termin/booker/jetstream/spans"
	"termin/shared"
)

// publishTraced publishes a booking whose message header and own field carry
// the given trace contexts.
func (q *queue) publishTraced(patient int64, header, field string) {
	q.t.Helper()
	key := "k" + string(rune('a'+patient))
	msg := nats.NewMsg(shared.Subject(q.cfg.Namespace.Subject(q.cfg.SubjectPrefix), 42))
	msg.Data = mustJSON(q.t, shared.Command{V: shared.Version, Kind: shared.KindBook, SlotID: 1, PatientID: patient,
		IdempotencyKey: key, TraceParent: field})
	msg.Header.Set(shared.ReplyHeader, q.inbox)
	if header != "" {
		msg.Header["traceparent"] = []string{header}
	}
	if _, err := q.js.PublishMsg(q.t.Context(), msg, natsjs.WithMsgID(shared.BookingMsgID(patient, key))); err != nil {
		q.t.Fatal(err)
	}
}

// TestBadTraceContextOnTheBusIsIgnored: commands whose trace context is
// malformed or oversized are decided like any other and traced as if they
// had none; only the well-formed sampled one is traced, and everything
// recorded belongs to its trace. The command's own traceparent is the one
// read: a header that says otherwise (patient 3's) changes nothing.
func TestBadTraceContextOnTheBusIsIgnored(t *testing.T) {
	const good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	svc := &fakeDecider{}
	q := newQueue(t, svc)
	q.worker.Tracer = spans.NewBooker(tp)
	q.publishTraced(1, good, good)
	q.publishTraced(2, "00-"+strings.Repeat("a", 4000), "00-"+strings.Repeat("a", 4000))
	q.publishTraced(3, "00-33333333333333333333333333333333-4444444444444444-01", "01-zz-yy-xx")
	q.publishTraced(4, "not\x00a\x00traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01")
	q.publishTraced(5, "", "")
	q.run()
	for range 5 {
		if d := q.reply(); d.Code != shared.Booked {
			t.Fatalf("reply %+v, want every booking decided", d)
		}
	}
	q.settled()
	ended := rec.Ended()
	if len(ended) == 0 {
		t.Fatal("nothing traced: the well-formed sampled command must be")
	}
	for _, s := range ended {
		if got := s.SpanContext().TraceID().String(); got != good[3:35] {
			t.Errorf("span %q in trace %s: only the well-formed command's trace may be recorded", s.Name(), got)
		}
	}
}
