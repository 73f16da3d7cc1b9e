// Package seedbaseline is the design this system replaces, written in Go as
// the design card (seed, sections 4 and 5) describes it: an HTTP server that
// books in one PostgreSQL transaction per request — the idempotency lookup by
// (patient, key), the conditional UPDATE of the slot, the appointment and its
// outbox row — and answers 201, 200 or 409.
//
// It exists so that the load test can measure the queue design against it in
// the same run, on the same machine and database: the claim that the queue
// takes a hot slot several times faster than one transaction per request is
// only worth the figure that puts both side by side, under the same load,
// and a figure from another day would compare the days. It is a measuring
// stick, not a product: no authentication. New serves the bare transaction,
// the seed's fastest; NewDesign adds what section 6 puts over it for the
// opening's bursts, the Redis cache of reads (reads.go) and the booking gate
// (gate.go), so that its cost per booking is the design's, not a part's.
package seedbaseline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maxBody bounds a booking's body, as the contract's 4 KiB.
const maxBody = 4 << 10

// Server answers POST /api/appointments as the seed's BookingService does,
// behind a Gate when it has one, and the seed's reads (reads.go), through a
// Cache when it has one.
type Server struct {
	db    *pgxpool.Pool
	cache *Cache
	gate  *Gate
}

// New returns the seed's booking endpoint over the given pool.
func New(db *pgxpool.Pool) *Server { return &Server{db: db} }

// NewDesign returns the seed's booking endpoint behind its gate (section
// 6.2) and its reads cached (section 6.1); either may be nil.
func NewDesign(db *pgxpool.Pool, c *Cache, g *Gate) *Server {
	return &Server{db: db, cache: c, gate: g}
}

// Appointment is the answer's body, in the contract's field names.
type Appointment struct {
	ID        int64     `json:"id"`
	SlotID    int64     `json:"slotId"`
	PatientID int64     `json:"patientId"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
}

type request struct {
	SlotID    int64 `json:"slotId"`
	PatientID int64 `json:"patientId"`
}

// ServeHTTP validates the request and books it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/doctors") {
		s.serveRead(w, r)
		return
	}
	if r.URL.Path != "/api/appointments" {
		problem(w, http.StatusNotFound, "NOT_FOUND")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		problem(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if !validKey(key) {
		problem(w, http.StatusBadRequest, "INVALID_IDEMPOTENCY_KEY")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	var req request
	if err != nil || len(body) > maxBody || json.Unmarshal(body, &req) != nil || req.SlotID <= 0 || req.PatientID <= 0 {
		problem(w, http.StatusBadRequest, "INVALID_REQUEST")
		return
	}
	if !s.gate.admit(r.Context(), w, req.SlotID, req.PatientID) {
		return
	}
	a, created, err := s.Book(r.Context(), req.SlotID, req.PatientID, key)
	if created {
		s.forgetDay(r.Context(), req.SlotID)
	}
	if errors.Is(err, ErrSlotFull) {
		s.gate.markFull(r.Context(), req.SlotID)
	}
	s.answer(w, a, created, err)
}

func (s *Server) answer(w http.ResponseWriter, a Appointment, created bool, err error) {
	switch {
	case errors.Is(err, ErrSlotFull):
		problem(w, http.StatusConflict, "SLOT_FULL")
	case errors.Is(err, ErrAlreadyBooked):
		problem(w, http.StatusConflict, "ALREADY_BOOKED")
	case err != nil:
		w.Header().Set("Retry-After", "1")
		problem(w, http.StatusServiceUnavailable, "UNAVAILABLE")
	default:
		status := http.StatusOK
		if created {
			status = http.StatusCreated
			w.Header().Set("Location", "/api/appointments/"+strconv.FormatInt(a.ID, 10))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(a)
	}
}

func problem(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"about:blank","title":%q,"status":%d,"code":%q}`, http.StatusText(status), status, code)
}

func validKey(k string) bool {
	if len(k) == 0 || len(k) > 64 {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ServeHandler listens on addr ("127.0.0.1:0" for a free port) and serves
// h, a server made by New or NewDesign, until ctx ends. It returns the base
// URL once the listener is open, and a function that waits for the server
// to stop.
func ServeHandler(ctx context.Context, addr string, h http.Handler) (url string, wait func(), err error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	})
	return "http://" + ln.Addr().String(), func() { <-done; stop() }, nil
}

// isUnique reports a unique violation of the named constraint.
func isUnique(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == constraint
}
