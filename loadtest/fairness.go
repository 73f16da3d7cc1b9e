package loadtest

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ScenarioFairness measures who wins an opening: one-click patients beside
// bot accounts that hold many connections, repeat at once instead of after
// Retry-After, and rotate keys within the per-patient limit.
const ScenarioFairness = "fairness"

// FairnessOptions shape the fairness scenario. Defaults follow the
// measurement in the issue: 40 capacity-1 slots of one doctor opening 4 s
// ahead, 1,000 one-click patients clicking from 3 s before to 1 s after,
// 20 bot accounts of 20 connections each starting 3 s before.
type FairnessOptions struct {
	GatewayURL, DatabaseURL, AuthToken string
	Seed                               int64
	Zone                               *time.Location
	Slots, Patients, Bots, BotConns    int
	OpensIn                            time.Duration
	// Limit and Window are the gateway's per-patient limit, which bots keep to.
	Limit  int
	Window time.Duration
	// Until is how long after the opening clients keep repeating.
	Until time.Duration
	Out   io.Writer
}

// WithDefaults fills the zero fields.
func (o FairnessOptions) WithDefaults() FairnessOptions {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Slots, 40)
	def(&o.Patients, 1000)
	def(&o.Bots, 20)
	def(&o.BotConns, 20)
	def(&o.Limit, 5)
	if o.OpensIn == 0 {
		o.OpensIn = 4 * time.Second
	}
	if o.Window == 0 {
		o.Window = 10 * time.Second
	}
	if o.Until == 0 {
		o.Until = 20 * time.Second
	}
	if o.Zone == nil {
		o.Zone = time.UTC
	}
	if o.Seed == 0 {
		o.Seed = time.Now().UnixNano()
	}
	return o
}

// ClassResult is one class of accounts' outcome.
type ClassResult struct {
	Name              string
	Accounts, Winners int
	Requests          int64
}

// WinRate is the share of the class's accounts that booked.
func (c ClassResult) WinRate() float64 { return float64(c.Winners) / float64(max(c.Accounts, 1)) }

// FairnessReport is the scenario's result: per class, and the one-click
// patients' chance relative to a bot account's.
type FairnessReport struct {
	Classes []ClassResult
	Places  int
}

// Ratio is a one-click patient's win rate over a bot account's (1 is fair).
func (r FairnessReport) Ratio() float64 {
	return r.Classes[0].WinRate() / math.Max(r.Classes[1].WinRate(), 1e-9)
}

// WriteText prints the report.
func (r FairnessReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "fairness: %d places\n%-20s %9s %9s %9s %10s\n", r.Places, "class", "accounts", "booked", "win rate", "requests")
	for i, c := range r.Classes {
		requests := fmt.Sprint(c.Requests)
		if i >= 2 {
			requests = "" // a split of the one-click patients
		}
		fmt.Fprintf(w, "%-20s %9d %9d %8.1f%% %10s\n", c.Name, c.Accounts, c.Winners, 100*c.WinRate(), requests)
	}
	if r.Classes[1].Winners == 0 {
		fmt.Fprintln(w, "one-click / bot win rate: no bot account booked")
		return
	}
	fmt.Fprintf(w, "one-click / bot win rate: %.2f (1.00 is fair); clicked before the opening / bot: %.2f\n",
		r.Ratio(), r.Classes[2].WinRate()/r.Classes[1].WinRate())
}

// RunFairness seeds one doctor's opening, runs both classes against it and
// reads who booked from the database.
func RunFairness(ctx context.Context, o FairnessOptions) (FairnessReport, error) {
	o = o.WithDefaults()
	pool, err := openPool(ctx, o.DatabaseURL, 4)
	if err != nil {
		return FairnessReport{}, err
	}
	defer pool.Close()
	id := newIDs(o.Seed)
	opens := time.Now().Add(o.OpensIn).Truncate(time.Millisecond)
	slots, err := seedSlots(ctx, pool, id, o.Zone, []grid{{doctors: 1, days: 1, perDay: o.Slots, capacity: fixed(1), opens: opens}}, io.Discard)
	if err != nil {
		return FairnessReport{}, err
	}
	ids := make([]int64, len(slots))
	for i, s := range slots {
		ids[i] = s.ID
	}
	f := &fairRun{o: o, id: id, slots: ids, opens: opens, end: opens.Add(o.Until),
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.Bots*o.BotConns + 256}}}
	patients, bots := f.run(ctx)
	won := map[int64]bool{}
	rows, err := pool.Query(ctx, `SELECT DISTINCT patient_id FROM appointment WHERE slot_id = ANY($1) AND status = 'BOOKED'`, ids)
	if err != nil {
		return FairnessReport{}, err
	}
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			return FairnessReport{}, err
		}
		won[p] = true
	}
	rows.Close()
	rep := FairnessReport{Places: len(ids), Classes: []ClassResult{
		{Name: "one-click patients", Accounts: o.Patients, Requests: patients},
		{Name: "bot accounts", Accounts: o.Bots, Requests: bots},
		{Name: "  clicked before", Accounts: f.early},
		{Name: "  clicked after", Accounts: o.Patients - f.early}}}
	for p := range won {
		c := f.class(p)
		rep.Classes[c].Winners++
		if c == 0 && f.clickedEarly[p] {
			rep.Classes[2].Winners++
		} else if c == 0 {
			rep.Classes[3].Winners++
		}
	}
	return rep, rows.Err()
}

type fairRun struct {
	o           FairnessOptions
	id          ids
	slots       []int64
	opens, end  time.Time
	http        *http.Client
	mu          sync.Mutex
	patientReqs int64
	botReqs     int64
	// clickedEarly marks the one-click patients who clicked before the
	// opening (in the pre-queue); early counts them.
	clickedEarly map[int64]bool
	early        int
}

// class is 0 for a one-click patient, 1 for a bot account.
func (f *fairRun) class(p int64) int {
	if p >= f.id.patient(f.o.Patients) {
		return 1
	}
	return 0
}

func (f *fairRun) run(ctx context.Context) (patients, bots int64) {
	var wg sync.WaitGroup
	rng := rand.New(rand.NewPCG(uint64(f.o.Seed), 16))
	f.clickedEarly = make(map[int64]bool, f.o.Patients)
	for n := range f.o.Patients {
		at := f.opens.Add(-3*time.Second + time.Duration(rng.Int64N(int64(4*time.Second))))
		slot := f.slots[rng.IntN(len(f.slots))]
		if at.Before(f.opens) {
			f.clickedEarly[f.id.patient(n)] = true
			f.early++
		}
		wg.Go(func() { f.oneClick(ctx, f.id.patient(n), slot, at) })
	}
	for b := range f.o.Bots {
		wg.Go(func() {
			f.bot(ctx, f.id.patient(f.o.Patients+b), rand.New(rand.NewPCG(uint64(f.o.Seed), uint64(100+b))))
		})
	}
	wg.Wait()
	return f.patientReqs, f.botReqs
}

// oneClick clicks once at at and repeats its key after each Retry-After
// until decided.
func (f *fairRun) oneClick(ctx context.Context, patient, slot int64, at time.Time) {
	sleepUntil(ctx, at)
	key := fmt.Sprintf("fair-%d", patient)
	for time.Now().Before(f.end) && ctx.Err() == nil {
		status, retry := f.post(ctx, patient, slot, key, &f.patientReqs)
		if status != http.StatusAccepted && status != http.StatusServiceUnavailable {
			return
		}
		sleepUntil(ctx, time.Now().Add(retry))
	}
}

// bot starts 3 s before the opening with the limit's worth of keys on
// different slots, each repeated by BotConns/Limit connections at once every
// 50 ms (bots ignore Retry-After); a refused key is replaced by a new one on
// another slot as soon as the limit allows. It stops once it has booked.
func (f *fairRun) bot(ctx context.Context, patient int64, rng *rand.Rand) {
	sleepUntil(ctx, f.opens.Add(-3*time.Second))
	b := &botAccount{patient: patient, rng: rng, f: f, keys: make([]botKey, f.o.Limit)}
	var wg sync.WaitGroup
	for c := range f.o.BotConns {
		wg.Go(func() { b.connection(ctx, c%f.o.Limit) })
	}
	wg.Wait()
}

type botKey struct {
	key  string
	slot int64
}

type botAccount struct {
	f       *fairRun
	patient int64
	rng     *rand.Rand
	mu      sync.Mutex
	keys    []botKey
	used    []time.Time // when each key was made, for the limit
	booked  bool
}

// key returns key i, making a new one when it is empty and the limit allows.
func (b *botAccount) key(i int) (botKey, bool, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.booked {
		return botKey{}, false, true
	}
	if b.keys[i].key == "" {
		now := time.Now()
		for len(b.used) > 0 && now.Sub(b.used[0]) > b.f.o.Window {
			b.used = b.used[1:]
		}
		if len(b.used) >= b.f.o.Limit {
			return botKey{}, false, false
		}
		b.used = append(b.used, now)
		b.keys[i] = botKey{fmt.Sprintf("bot-%d-%d", b.patient, b.rng.Int64()), b.f.slots[b.rng.IntN(len(b.f.slots))]}
	}
	return b.keys[i], true, false
}

func (b *botAccount) connection(ctx context.Context, i int) {
	for time.Now().Before(b.f.end) && ctx.Err() == nil {
		k, ok, done := b.key(i)
		switch {
		case done:
			return
		case !ok:
			sleepUntil(ctx, time.Now().Add(100*time.Millisecond))
			continue
		}
		switch status, _ := b.f.post(ctx, b.patient, k.slot, k.key, &b.f.botReqs); status {
		case http.StatusCreated, http.StatusOK:
			b.mu.Lock()
			b.booked = true
			b.mu.Unlock()
			return
		case http.StatusAccepted, http.StatusServiceUnavailable, http.StatusTooManyRequests, 0:
			sleepUntil(ctx, time.Now().Add(50*time.Millisecond))
		default: // refused: the next round makes a new key on another slot
			b.mu.Lock()
			if b.keys[i] == k {
				b.keys[i] = botKey{}
			}
			b.mu.Unlock()
		}
	}
}

func (f *fairRun) post(ctx context.Context, patient, slot int64, key string, count *int64) (int, time.Duration) {
	f.mu.Lock()
	*count++
	f.mu.Unlock()
	body := fmt.Sprintf(`{"slotId":%d,"patientId":%d}`, slot, patient)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.o.GatewayURL+"/api/appointments", strings.NewReader(body))
	if err != nil {
		return 0, time.Second
	}
	req.Header.Set("Idempotency-Key", key)
	if f.o.AuthToken != "" {
		req.Header.Set("Authorization", "Bearer "+f.o.AuthToken)
	}
	resp, err := f.http.Do(req)
	if err != nil {
		return 0, time.Second
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return resp.StatusCode, time.Duration(max(retry, 1)) * time.Second
}

func sleepUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}
