package http_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"termin/shared"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
	"go.opentelemetry.io/otel/trace"

	"termin/gateway"
	"termin/gateway/find"
	gwhttp "termin/gateway/http"
	"termin/gateway/oidc"
)

// fakeBookings records the commands it gets and answers with the functions
// a test sets; unset functions book appointment 9001 and cancel at once.
type fakeBookings struct {
	mu       sync.Mutex
	bookFn   func(gateway.BookRequest) (gateway.BookingResult, error)
	cancelFn func(gateway.Appointment) (bool, error)
	moveFn   func(gateway.Appointment, gateway.RescheduleRequest) (gateway.BookingResult, error)
	books    []gateway.BookRequest
	cancels  []int64
	moves    []gateway.RescheduleRequest
}

// RequestReschedule records the move and answers with moveFn, or moves the
// appointment as asked.
func (f *fakeBookings) RequestReschedule(_ context.Context, a gateway.Appointment, req gateway.RescheduleRequest) (gateway.BookingResult, error) {
	f.mu.Lock()
	f.moves = append(f.moves, req)
	fn := f.moveFn
	f.mu.Unlock()
	if fn != nil {
		return fn(a, req)
	}
	a.SlotID = req.SlotID
	return gateway.BookingResult{Appointment: a}, nil
}

func (f *fakeBookings) moveCalls() []gateway.RescheduleRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]gateway.RescheduleRequest(nil), f.moves...)
}

func (f *fakeBookings) RequestBooking(_ context.Context, req gateway.BookRequest) (gateway.BookingResult, error) {
	f.mu.Lock()
	f.books = append(f.books, req)
	fn := f.bookFn
	f.mu.Unlock()
	if fn != nil {
		return fn(req)
	}
	return gateway.BookingResult{Appointment: gateway.Appointment{
		ID: 9001, SlotID: req.SlotID, PatientID: req.PatientID, Status: gateway.StatusBooked, CreatedAt: createdAt,
	}}, nil
}

func (f *fakeBookings) RequestCancellation(_ context.Context, a gateway.Appointment) (bool, error) {
	f.mu.Lock()
	f.cancels = append(f.cancels, a.ID)
	fn := f.cancelFn
	f.mu.Unlock()
	if fn != nil {
		return fn(a)
	}
	return false, nil
}

// RequestConfirmation books the hold at once.
func (f *fakeBookings) RequestConfirmation(_ context.Context, a gateway.Appointment) (gateway.Appointment, error) {
	a.Status, a.ExpiresAt = gateway.StatusBooked, time.Time{}
	return a, nil
}

func (f *fakeBookings) bookCalls() []gateway.BookRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]gateway.BookRequest(nil), f.books...)
}

func (f *fakeBookings) cancelCalls() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.cancels...)
}

// fakeReads serves fixed slots, appointments and doctors.
type fakeReads struct {
	slots   map[int64][]gateway.Slot
	appts   map[int64]gateway.Appointment
	doctors map[int64]gateway.Doctor
	err     error
	mu      sync.Mutex
	queries []find.Query // the searches asked for
}

// PatientAppointments lists the patient's appointments by id, up to limit.
func (f *fakeReads) PatientAppointments(_ context.Context, patientID int64, limit int) ([]gateway.Appointment, error) {
	if f.err != nil {
		return nil, f.err
	}
	var out []gateway.Appointment
	for _, a := range f.appts {
		if a.PatientID == patientID {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b gateway.Appointment) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), limit)], nil
}

func (f *fakeReads) FindDoctors(_ context.Context, q find.Query) ([]find.Result, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	var out []find.Result
	for _, d := range f.doctors {
		if d.ID > q.After {
			out = append(out, find.Result{Doctor: d, Practice: shared.Practice{ID: d.PracticeID}})
		}
	}
	slices.SortFunc(out, func(a, b find.Result) int { return cmp.Compare(a.Doctor.ID, b.Doctor.ID) })
	return out[:min(len(out), q.Limit)], nil
}

func (f *fakeReads) Doctor(_ context.Context, id int64) (gateway.Doctor, bool, error) {
	if f.err != nil {
		return gateway.Doctor{}, false, f.err
	}
	d, ok := f.doctors[id]
	return d, ok, nil
}

func (f *fakeReads) ListSlots(_ context.Context, doctorID int64, _ shared.Date) ([]gateway.Slot, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.slots[doctorID], nil
}

func (f *fakeReads) Appointment(_ context.Context, id int64) (gateway.Appointment, error) {
	if f.err != nil {
		return gateway.Appointment{}, f.err
	}
	a, ok := f.appts[id]
	if !ok {
		return gateway.Appointment{}, gateway.ErrAppointmentNotFound
	}
	return a, nil
}

var (
	createdAt = time.Date(2026, 10, 1, 7, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	// upcoming is a start time that stays in the future; past one that has been.
	upcoming = time.Date(2099, 1, 5, 9, 0, 0, 0, time.UTC)
	past     = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
)

// env is a running server on an in-memory listener, with its fakes.
type env struct {
	books  *fakeBookings
	reads  *fakeReads
	secret []byte
	client *fasthttp.HostClient
	dial   func() (net.Conn, error)
	logs   *lockedBuffer
	people *fakePeople
}

// options of newEnv. Without a secret authentication is disabled.
type envOptions struct {
	secret    []byte
	ready     func(context.Context) error
	issuer    string
	audience  string
	waitlist  gateway.Waitlist
	doctors   gateway.DoctorWriter
	practices find.PracticeWriter
	known     gateway.KnownDoctors
	// provider verifies an OpenID provider's tokens beside the secret's;
	// clientID is the pages' client there.
	provider *oidc.Verifier
	clientID string
	// traces receives the server's spans; nil traces nothing.
	traces trace.TracerProvider
}

// lockedBuffer collects the server's log for tests that look for leaks.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newEnv(t *testing.T, opts envOptions) *env {
	t.Helper()
	e := &env{books: &fakeBookings{}, reads: &fakeReads{
		slots: map[int64][]gateway.Slot{},
		appts: map[int64]gateway.Appointment{
			5: {ID: 5, SlotID: 1001, PatientID: 77, Status: gateway.StatusBooked, CreatedAt: createdAt,
				DoctorID: 42, StartAt: upcoming, EndAt: upcoming.Add(15 * time.Minute)},
			6: {ID: 6, SlotID: 1002, PatientID: 88, Status: gateway.StatusCancelled, CreatedAt: createdAt,
				DoctorID: 42, StartAt: upcoming, EndAt: upcoming.Add(15 * time.Minute)},
			7: {ID: 7, SlotID: 1003, PatientID: 77, Status: gateway.StatusBooked, CreatedAt: createdAt,
				DoctorID: 43, StartAt: past, EndAt: past.Add(15 * time.Minute)},
		},
		doctors: map[int64]gateway.Doctor{42: {ID: 42, Name: "Dr. Weber", Specialty: "Allgemeinmedizin"}},
	}, secret: opts.secret, logs: &lockedBuffer{}, people: &fakePeople{}}
	auth := gwhttp.AuthConfig{Secret: opts.secret, Disabled: opts.secret == nil && opts.provider == nil, Issuer: opts.issuer,
		Audience: opts.audience, Provider: opts.provider}
	srv, err := gwhttp.NewServer(gwhttp.Config{
		Bookings: e.books, Reads: e.reads, Finder: e.reads, Ready: opts.ready, Auth: auth, Registry: prometheus.NewRegistry(), Waitlist: opts.waitlist,
		Logger: slog.New(slog.NewTextHandler(io.MultiWriter(t.Output(), e.logs), nil)), Doctors: opts.doctors, Practices: opts.practices,
		KnownDoctors: opts.known, People: e.people, SignIn: gwhttp.SignIn{ClientID: opts.clientID}, Traces: opts.traces,
	})
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	ln := fasthttputil.NewInmemoryListener()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	e.dial = ln.Dial
	e.client = &fasthttp.HostClient{Addr: "gateway.test", Dial: func(string) (net.Conn, error) { return ln.Dial() }}
	return e
}

// req is one request of a test.
type req struct {
	method, path, body string
	header             map[string]string
}

// resp is an answer, copied out of fasthttp's pooled response.
type resp struct {
	status int
	header map[string]string
	body   []byte
}

func (e *env) do(t *testing.T, r req) resp {
	t.Helper()
	rq, rs := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(rq)
	defer fasthttp.ReleaseResponse(rs)
	rq.Header.SetMethod(r.method)
	rq.SetRequestURI("http://gateway.test" + r.path)
	for k, v := range r.header {
		rq.Header.Set(k, v)
	}
	if r.body != "" {
		rq.SetBodyString(r.body)
	}
	if err := e.client.DoTimeout(rq, rs, 5*time.Second); err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	out := resp{status: rs.StatusCode(), header: map[string]string{}, body: bytes.Clone(rs.Body())}
	for k, v := range rs.Header.All() {
		out.header[string(k)] = string(v)
	}
	return out
}

// book posts a booking with key and body.
func (e *env) book(t *testing.T, key, body string, header map[string]string) resp {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	for k, v := range header {
		h[k] = v
	}
	return e.do(t, req{method: "POST", path: "/api/appointments", body: body, header: h})
}

func expectStatus(t *testing.T, r resp, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body %s", r.status, status, r.body)
	}
}

// expectLine checks that a JSON body ends with a newline, so that a shell's
// prompt after curl starts on its own line.
func expectLine(t *testing.T, r resp) {
	t.Helper()
	if !bytes.HasSuffix(r.body, []byte("\n")) {
		t.Errorf("body %q does not end with a newline", r.body)
	}
}

// problemBody is the RFC 9457 problem as a client reads it.
type problemBody struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Code   string `json:"code"`
}

// expectProblem checks status, content type and every field of a problem,
// and returns it for further checks on the detail.
func expectProblem(t *testing.T, r resp, status int, code string) problemBody {
	t.Helper()
	expectStatus(t, r, status)
	if ct := r.header["Content-Type"]; ct != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", ct)
	}
	expectLine(t, r)
	var p problemBody
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("problem body %s: %v", r.body, err)
	}
	wantType := "https://termin.example/problems/" + strings.ReplaceAll(strings.ToLower(code), "_", "-")
	if p.Code != code || p.Status != status || p.Type != wantType || p.Title == "" || p.Detail == "" {
		t.Errorf("problem = %+v, want code %s, status %d, type %s, a title and a detail", p, code, status, wantType)
	}
	return p
}

// expectJSON checks a JSON answer field by field against want, given as JSON.
func expectJSON(t *testing.T, r resp, status int, want string) {
	t.Helper()
	expectStatus(t, r, status)
	if ct := r.header["Content-Type"]; ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	expectLine(t, r)
	var got, exp any
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(exp)
	if !bytes.Equal(g, w) {
		t.Errorf("body = %s, want %s", g, w)
	}
}

// token signs claims with secret as HS256.
func token(t *testing.T, secret []byte, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	return s
}

// bearer is the Authorization header of a token for sub and role valid for
// an hour.
func (e *env) bearer(t *testing.T, sub, role string) map[string]string {
	t.Helper()
	tok := token(t, e.secret, jwt.MapClaims{"sub": sub, "role": role, "exp": time.Now().Add(time.Hour).Unix()})
	return map[string]string{"Authorization": "Bearer " + tok}
}

// noAuth is the configuration of tests that are not about authentication.
var noAuth = gwhttp.AuthConfig{Disabled: true}

var errBoom = errors.New("boom: connection to 10.0.0.7 refused")
