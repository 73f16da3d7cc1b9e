package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// fairRun is the scenario's clients and what they sent.
type fairRun struct {
	o FairnessOptions
	// run tells this run's keys (both classes') from an earlier run's with the same seed
	// (the same patients): the decisions bucket remembers a key's decision
	// for days, and its slot, another run's, made the repeat a reused key.
	run         string
	urls        []string
	http        *http.Client
	patientReqs atomic.Int64
	botReqs     atomic.Int64
}

// client plays one account.
func (f *fairRun) client(ctx context.Context, a account) {
	rng := rand.New(rand.NewPCG(a.seedRand, 17))
	sleepUntil(ctx, a.at)
	if a.bot {
		f.bot(ctx, a, rng)
		return
	}
	f.oneClick(ctx, a)
}

// oneClick clicks once and repeats its key after each Retry-After until
// decided. As on the page, the click names every free time of the morning
// ("any of these times", in order of time); with OneSlot only the time the
// patient would pick.
func (f *fairRun) oneClick(ctx context.Context, a account) {
	key := fmt.Sprintf("fair-%s-%d", f.run, a.patient)
	slots := a.morning
	if f.o.OneSlot || len(slots) < 2 {
		slots = []int64{a.pick}
	}
	for time.Now().Before(a.end) && ctx.Err() == nil {
		status, retry, _ := f.post(ctx, a.patient, slots, a.slots, key, &f.patientReqs)
		if status != http.StatusAccepted && status != http.StatusServiceUnavailable && status != 0 {
			return
		}
		sleepUntil(ctx, time.Now().Add(retry))
	}
}

// bot repeats one key over all its connections every BotPause (bots ignore
// Retry-After), and replaces a refused key at once by a new one on a slot
// not yet refused as full, as long as the limit allows; each key names the
// morning's other times too (named). More keys at once
// would gain nothing (a patient's keys in one opening hold one place) and
// would spend the limit that a refusal's new key needs. It stops once it has
// booked or every slot of its doctor has been refused as full.
func (f *fairRun) bot(ctx context.Context, a account, rng *rand.Rand) {
	b := &botAccount{f: f, a: a, rng: rng, full: map[int64]bool{}}
	var wg sync.WaitGroup
	for range f.o.BotConns {
		wg.Go(func() { b.connection(ctx) })
	}
	wg.Wait()
}

type botKey struct {
	key  string
	slot int64
}

type botAccount struct {
	f    *fairRun
	a    account
	mu   sync.Mutex
	rng  *rand.Rand
	key  botKey      // the key every connection repeats
	used []time.Time // when each key was made, for the limit
	full map[int64]bool
	done bool
	// tried is set once the first key is made: later ones draw their slot.
	tried bool
}

// current returns the key to repeat, making a new one on a slot not yet
// refused as full when there is none and the limit allows; done once the
// bot has nothing left to try.
func (b *botAccount) current() (k botKey, ok, done bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done || len(b.full) == len(b.a.slots) {
		return botKey{}, false, true
	}
	if b.key.key == "" {
		now := time.Now()
		for len(b.used) > 0 && now.Sub(b.used[0]) > b.f.o.Window {
			b.used = b.used[1:]
		}
		if len(b.used) >= b.f.o.BotKeys {
			return botKey{}, false, false
		}
		b.used = append(b.used, now)
		slot := b.a.pick // the first key asks for the time it picked
		if b.tried {
			slot = b.a.slots[b.rng.IntN(len(b.a.slots))]
			for b.full[slot] {
				slot = b.a.slots[b.rng.IntN(len(b.a.slots))]
			}
		}
		b.tried = true
		b.key = botKey{fmt.Sprintf("bot-%s-%d-%d", b.f.run, b.a.patient, b.rng.Int64()), slot}
	}
	return b.key, true, false
}

func (b *botAccount) connection(ctx context.Context) {
	for time.Now().Before(b.a.end) && ctx.Err() == nil {
		k, ok, done := b.current()
		switch {
		case done:
			return
		case !ok:
			sleepUntil(ctx, time.Now().Add(b.f.o.BotPause))
			continue
		}
		named := b.named(k.slot)
		status, _, code := b.f.post(ctx, b.a.patient, named, b.a.slots, k.key, &b.f.botReqs)
		switch status {
		case http.StatusCreated, http.StatusOK:
			b.mu.Lock()
			b.done = true
			b.mu.Unlock()
			return
		case http.StatusAccepted, http.StatusServiceUnavailable, http.StatusTooManyRequests, 0:
			sleepUntil(ctx, time.Now().Add(b.f.o.BotPause))
		default: // refused: the next round makes a new key on another slot
			b.mu.Lock()
			if code == "SLOT_FULL" { // none of the times named had a place
				for _, s := range named {
					b.full[s] = true
				}
			}
			if b.key == k {
				b.key = botKey{}
			}
			b.mu.Unlock()
		}
	}
}

// named is what a bot's key asks for: its slot first, then, as a page
// patient's click does, every other time of the morning not yet refused
// as full. A bot uses whatever the API offers a client, and a list of
// times is part of it: a bot naming one time at a time would only show
// that a weaker bot loses, not that the line is fair. With OneSlot,
// neither class names more than one.
func (b *botAccount) named(slot int64) []int64 {
	out := []int64{slot}
	if b.f.o.OneSlot {
		return out
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.a.morning {
		if s != slot && !b.full[s] {
			out = append(out, s)
		}
	}
	return out
}

// post sends one booking of the slots named (slotId for one, slotIds for
// more; with Alternatives all of the doctor's, the first named first); it
// returns the status (0 when none came), the Retry-After and the problem's
// code.
func (f *fairRun) post(ctx context.Context, patient int64, named, slots []int64, key string, count *atomic.Int64) (int, time.Duration, string) {
	count.Add(1)
	body := fmt.Sprintf(`{"slotId":%d,"patientId":%d}`, named[0], patient)
	switch {
	case f.o.Alternatives:
		body = fmt.Sprintf(`{"slotIds":%s,"patientId":%d}`, preferring(named[0], slots), patient)
	case len(named) > 1:
		data, _ := json.Marshal(named)
		body = fmt.Sprintf(`{"slotIds":%s,"patientId":%d}`, data, patient)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.urls[rand.IntN(len(f.urls))]+"/api/appointments", strings.NewReader(body))
	if err != nil {
		return 0, time.Second, ""
	}
	req.Header.Set("Idempotency-Key", key)
	if f.o.AuthToken != "" {
		req.Header.Set("Authorization", "Bearer "+f.o.AuthToken)
	}
	resp, err := f.http.Do(req)
	if err != nil {
		return 0, time.Second, ""
	}
	defer resp.Body.Close()
	var problem struct {
		Code string `json:"code"`
	}
	if resp.StatusCode >= 400 {
		_ = json.NewDecoder(resp.Body).Decode(&problem)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return resp.StatusCode, time.Duration(max(retry, 1)) * time.Second, problem.Code
}

func sleepUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}

// preferring is the JSON list of slots with first in front.
func preferring(first int64, slots []int64) string {
	out := []int64{first}
	for _, s := range slots {
		if s != first {
			out = append(out, s)
		}
	}
	data, _ := json.Marshal(out)
	return string(data)
}
