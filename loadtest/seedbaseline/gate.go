package seedbaseline

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The seed's BookingGate (section 6.2): at most AttemptsPerWindow booking
// attempts per patient in AttemptWindow, and a slot the database found full
// refused in Redis for FullFor without reaching the database.
const (
	AttemptsPerWindow = 5
	AttemptWindow     = 10 * time.Second
	FullFor           = 30 * time.Second
)

// Gate is the seed's Redis filter in front of the booking transaction. It
// filters only: capacity is decided by the conditional UPDATE, as the seed
// insists, and a Redis that fails lets the request through to the database.
type Gate struct {
	Redis *redis.Client
	// Prefix starts every key, so that runs sharing a Redis keep apart.
	Prefix string
}

// admit runs the gate's two checks in the seed controller's order and
// answers a refusal itself: 429 for a patient over the limit, 409 for a
// slot known full. It reports whether the request goes on to the database.
func (g *Gate) admit(ctx context.Context, w http.ResponseWriter, slotID, patientID int64) bool {
	if g == nil {
		return true
	}
	if !g.allowPatient(ctx, patientID) {
		w.Header().Set("Retry-After", strconv.Itoa(int(AttemptWindow/time.Second)))
		problem(w, http.StatusTooManyRequests, "RATE_LIMITED")
		return false
	}
	if g.knownFull(ctx, slotID) {
		problem(w, http.StatusConflict, "SLOT_FULL")
		return false
	}
	return true
}

// allowPatient counts the attempt; the window starts with the first one.
func (g *Gate) allowPatient(ctx context.Context, patientID int64) bool {
	key := g.Prefix + "rl:booking:" + strconv.FormatInt(patientID, 10)
	n, err := g.Redis.Incr(ctx, key).Result()
	if err != nil {
		return true
	}
	if n == 1 {
		_ = g.Redis.Expire(ctx, key, AttemptWindow).Err()
	}
	return n <= AttemptsPerWindow
}

func (g *Gate) knownFull(ctx context.Context, slotID int64) bool {
	n, err := g.Redis.Exists(ctx, g.fullKey(slotID)).Result()
	return err == nil && n == 1
}

// markFull is called when the conditional UPDATE found no place; the mark
// expires so that a cancelled place can be taken again.
func (g *Gate) markFull(ctx context.Context, slotID int64) {
	if g != nil {
		_ = g.Redis.Set(ctx, g.fullKey(slotID), "1", FullFor).Err()
	}
}

func (g *Gate) fullKey(slotID int64) string {
	return g.Prefix + "slot:full:" + strconv.FormatInt(slotID, 10)
}
