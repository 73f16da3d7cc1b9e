package scenario

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
)

// FairnessOptions shape the fairness scenario: Waves × Doctors openings of
// Slots capacity-1 slots each, every opening wanted by Patients one-click
// patients and Bots bot accounts. Both classes click at an instant drawn
// alike from Before the opening to After it, so that only what a bot does
// differently (connections, repeats, keys) can change its chance.
type FairnessOptions struct {
	// GatewayURL may list several gateways, comma-separated: each request
	// goes to one of them at random, as a load balancer spreads them.
	GatewayURL, DatabaseURL, AuthToken string
	Seed                               int64
	Zone                               *time.Location
	// Doctors open at once in each wave; Slots, Patients and Bots are per
	// doctor; BotConns per bot account.
	Doctors, Slots, Patients, Bots, BotConns, Waves int
	// OpensIn is the first wave's opening after seeding begins; WaveGap
	// separates the waves' openings.
	OpensIn, WaveGap time.Duration
	// Before and After bound the first click of every account around its
	// opening.
	Before, After time.Duration
	// BotPause is a bot connection's pause between repeats (it ignores
	// Retry-After).
	BotPause time.Duration
	// Limit and Window are the gateway's per-patient limit, which bots keep
	// to; BotKeys (at most Limit, 0 = Limit) is how many keys a bot makes
	// per Window: 1 keeps it from trying another slot after a refusal.
	Limit, BotKeys int
	Window         time.Duration
	// Alternatives makes every account name all of its doctor's slots
	// ("slotIds", its chosen one first) instead of one.
	Alternatives bool
	// Until is how long after its opening a wave's clients keep repeating.
	Until time.Duration
}

// WithDefaults fills the zero fields: 12 waves, 8 s apart, of 100 doctors ×
// 4 slots, each doctor wanted by 8 one-click patients and 8 bot accounts of
// 10 connections (four accounts per place), clicks from 3 s before to 1 s
// after the opening: 9,600 accounts per class, enough for the ratio's 95 %
// interval to be about ±5 %.
func (o FairnessOptions) WithDefaults() FairnessOptions {
	loadtest.Default(&o.Doctors, 100)
	loadtest.Default(&o.Slots, 4)
	loadtest.Default(&o.Patients, 8)
	loadtest.Default(&o.Bots, 8)
	loadtest.Default(&o.BotConns, 10)
	loadtest.Default(&o.Waves, 12)
	loadtest.Default(&o.Limit, 5)
	loadtest.Default(&o.BotKeys, o.Limit)
	o.BotKeys = min(o.BotKeys, o.Limit)
	loadtest.Default(&o.OpensIn, 6*time.Second)
	loadtest.Default(&o.WaveGap, 8*time.Second)
	loadtest.Default(&o.Before, 3*time.Second)
	loadtest.Default(&o.After, time.Second)
	loadtest.Default(&o.BotPause, 50*time.Millisecond)
	loadtest.Default(&o.Window, 10*time.Second)
	loadtest.Default(&o.Until, 5*time.Second)
	if o.Zone == nil {
		o.Zone = time.UTC
	}
	if o.Seed == 0 {
		o.Seed = time.Now().UnixNano()
	}
	return o
}

// account is one patient of the run: its class, its doctor's slots, when it
// first clicks and when it gives up.
type account struct {
	patient  int64
	bot      bool
	slots    []int64
	at, end  time.Time
	early    bool // clicked before the opening
	seedRand uint64
}

// RunFairness seeds the openings, runs both classes against them and reads
// who booked from the database.
func RunFairness(ctx context.Context, o FairnessOptions) (FairnessReport, error) {
	o = o.WithDefaults()
	pool, err := openPool(ctx, o.DatabaseURL, 4)
	if err != nil {
		return FairnessReport{}, err
	}
	defer pool.Close()
	id := loadtest.NewIDs(o.Seed)
	first := time.Now().Add(o.OpensIn).Truncate(time.Millisecond)
	var grids []grid
	for w := range o.Waves {
		grids = append(grids, grid{firstDoctor: w * o.Doctors, doctors: o.Doctors, days: 1, perDay: o.Slots,
			capacity: fixed(1), opens: first.Add(time.Duration(w) * o.WaveGap)})
	}
	slots, err := seedSlots(ctx, pool, id, o.Zone, grids, io.Discard)
	if err != nil {
		return FairnessReport{}, err
	}
	accounts := o.accounts(id, slots, first)
	f := &fairRun{o: o, urls: strings.Split(o.GatewayURL, ","), http: &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: o.Doctors*o.Bots*o.BotConns + 1024}}}
	var wg sync.WaitGroup
	for _, a := range accounts {
		wg.Go(func() { f.client(ctx, a) })
	}
	wg.Wait()
	booked, err := bookedPerPatient(ctx, pool, slots)
	if err != nil {
		return FairnessReport{}, err
	}
	return f.report(accounts, booked, len(slots)), nil
}

// accounts deals the run's patients to the openings: per doctor first its
// one-click patients, then its bots, each with a first click drawn from the
// same window around its wave's opening.
func (o FairnessOptions) accounts(id loadtest.IDs, slots []slot, first time.Time) []account {
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 16))
	byDoctor := map[int64][]int64{}
	for _, s := range slots {
		byDoctor[s.Doctor] = append(byDoctor[s.Doctor], s.ID)
	}
	var out []account
	for w := range o.Waves {
		opens := first.Add(time.Duration(w) * o.WaveGap)
		for d := range o.Doctors {
			mine := byDoctor[id.Doctor(w*o.Doctors+d)]
			for k := range o.Patients + o.Bots {
				at := opens.Add(-o.Before + time.Duration(rng.Int64N(int64(o.Before+o.After))))
				out = append(out, account{patient: id.Patient(len(out)), bot: k >= o.Patients, slots: mine,
					at: at, end: opens.Add(o.Until), early: at.Before(opens), seedRand: rng.Uint64()})
			}
		}
	}
	return out
}

// bookedPerPatient counts the appointments each patient holds in the slots.
func bookedPerPatient(ctx context.Context, pool *pgxpool.Pool, slots []slot) (map[int64]int, error) {
	ids := make([]int64, len(slots))
	for i, s := range slots {
		ids[i] = s.ID
	}
	rows, err := pool.Query(ctx, `SELECT patient_id, count(*) FROM appointment
		WHERE slot_id = ANY($1) AND status = 'BOOKED' GROUP BY patient_id`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var p int64
		var n int
		if err := rows.Scan(&p, &n); err != nil {
			return nil, err
		}
		out[p] = n
	}
	return out, rows.Err()
}
