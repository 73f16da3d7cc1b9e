package seedbaseline

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// The seed's reads (section 6.1): a doctor's day of free slots, and a
// search the way the seed's schema answers it, each cached in Redis under
// its request for a few seconds; a booking deletes its day's key.
const (
	slotsSQL = `SELECT id, start_at, end_at, capacity, capacity - booked_count FROM time_slot
        WHERE doctor_id = $1 AND start_at >= $2 AND start_at < $3 AND start_at > now()
          AND opens_at <= now() AND booked_count < capacity
        ORDER BY start_at`
	// searchSQL finds doctors of a specialty in a town and each one's next
	// three free slots from time_slot, along uq_doctor_start.
	searchSQL = `SELECT d.id, d.name, d.specialty, p.name, p.city, nf.ids, nf.starts
        FROM doctor d JOIN practice p ON p.id = d.practice_id
        CROSS JOIN LATERAL (
            SELECT coalesce(array_agg(t.id ORDER BY t.start_at), '{}') AS ids,
                   coalesce(array_agg(t.start_at ORDER BY t.start_at), '{}') AS starts
            FROM (SELECT id, start_at FROM time_slot t WHERE t.doctor_id = d.id AND t.start_at > now()
                  AND t.opens_at <= now() AND t.booked_count < t.capacity ORDER BY t.start_at LIMIT 3) AS t) AS nf
        WHERE ($1 = '' OR d.specialty = $1) AND ($2 = '' OR lower(p.city) = lower($2))
        ORDER BY d.id LIMIT 20`
	dayKeySQL = `SELECT doctor_id, start_at FROM time_slot WHERE id = $1`
)

// Cache is the seed's Redis in front of the reads: TTL is how long an
// answer is served from it.
type Cache struct {
	Redis *redis.Client
	TTL   time.Duration
	Zone  *time.Location
	// Prefix starts every key, so that runs sharing a Redis keep apart.
	Prefix string
}

type freeSlot struct {
	ID        int64     `json:"id"`
	StartAt   time.Time `json:"startAt"`
	EndAt     time.Time `json:"endAt"`
	Capacity  int       `json:"capacity"`
	Available int       `json:"available"`
}

type found struct {
	ID        int64       `json:"id"`
	Name      string      `json:"name"`
	Specialty string      `json:"specialty"`
	Practice  string      `json:"practice"`
	City      string      `json:"city"`
	SlotIDs   []int64     `json:"nextFreeSlotIds"`
	Starts    []time.Time `json:"nextFreeStarts"`
}

// serveRead answers GET /api/doctors/{id}/slots?date= and GET
// /api/doctors?specialty=&city= from the cache, or from PostgreSQL into it.
func (s *Server) serveRead(w http.ResponseWriter, r *http.Request) {
	var key string
	if s.cache != nil {
		key = s.cache.Prefix + r.URL.RequestURI()
		if body, err := s.cache.Redis.Get(r.Context(), key).Bytes(); err == nil {
			writeJSON(w, body)
			return
		}
	}
	body, err := s.readDB(r)
	switch {
	case errors.Is(err, errNotFound):
		problem(w, http.StatusNotFound, "NOT_FOUND")
		return
	case err != nil:
		problem(w, http.StatusServiceUnavailable, "UNAVAILABLE")
		return
	}
	if s.cache != nil {
		_ = s.cache.Redis.Set(r.Context(), key, body, s.cache.TTL).Err()
	}
	writeJSON(w, body)
}

var errNotFound = errors.New("no such read")

func (s *Server) readDB(r *http.Request) ([]byte, error) {
	if r.URL.Path == "/api/doctors" {
		q := r.URL.Query()
		rows, _ := s.db.Query(r.Context(), searchSQL, q.Get("specialty"), q.Get("city"))
		list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (found, error) {
			var f found
			err := row.Scan(&f.ID, &f.Name, &f.Specialty, &f.Practice, &f.City, &f.SlotIDs, &f.Starts)
			return f, err
		})
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"doctors": list})
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/doctors/")
	doctor, okID := strings.CutSuffix(rest, "/slots")
	id, err := strconv.ParseInt(doctor, 10, 64)
	day, dayErr := time.ParseInLocation(time.DateOnly, r.URL.Query().Get("date"), s.zone())
	if !ok || !okID || err != nil || dayErr != nil {
		return nil, errNotFound
	}
	rows, _ := s.db.Query(r.Context(), slotsSQL, id, day, day.AddDate(0, 0, 1))
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[freeSlot])
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"doctorId": id, "date": day.Format(time.DateOnly), "slots": list})
}

// forgetDay deletes the cached day of the slot a booking took, as the
// seed's section 6.1 asks.
func (s *Server) forgetDay(ctx context.Context, slotID int64) {
	if s.cache == nil {
		return
	}
	var doctor int64
	var start time.Time
	if err := s.db.QueryRow(ctx, dayKeySQL, slotID).Scan(&doctor, &start); err != nil {
		return
	}
	date := start.In(s.zone()).Format(time.DateOnly)
	_ = s.cache.Redis.Del(ctx, s.cache.Prefix+"/api/doctors/"+strconv.FormatInt(doctor, 10)+"/slots?date="+date).Err()
}

func (s *Server) zone() *time.Location {
	if s.cache != nil && s.cache.Zone != nil {
		return s.cache.Zone
	}
	return time.UTC
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
