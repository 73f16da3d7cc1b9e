package scenario

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/report"
)

// FairnessOptions shape the fairness scenario: Waves × Doctors openings of
// Slots capacity-1 slots each, every opening wanted by Patients one-click
// patients and Bots bot accounts. Both classes click at an instant drawn
// alike from Before the opening to After it, so that only what a bot does
// differently (connections, repeats, keys) can change its chance. A
// one-click patient books as the patient page does with "any of these
// times": it takes every free time of the morning it opened and sends them
// in one click, in order of time.
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
	// OneSlot makes one-click patients name only the one time they would
	// click, as the page did before "any of these times".
	OneSlot bool
	// Until is how long after its opening a wave's clients keep repeating.
	Until time.Duration
}

// WithDefaults fills the zero fields: 12 waves, 8 s apart, of 100 doctors ×
// 8 slots, each doctor wanted by 8 one-click patients and 8 bot accounts of
// 10 connections (two accounts per place), clicks from 3 s before to 1 s
// after the opening: 9,600 accounts per class, enough for the ratio's 95 %
// interval to be about ±5 %. At two accounts per place nine openings in ten
// leave places after the draw (see placesLeft), where a bot's second
// attempt used to win.
func (o FairnessOptions) WithDefaults() FairnessOptions {
	loadtest.Default(&o.Doctors, 100)
	loadtest.Default(&o.Slots, 8)
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

// account is one patient of the run: its class, its doctor's slots, the
// one it would click (a bot's first try), the morning's slots it names on
// the page, when it first clicks and when it gives up.
type account struct {
	patient  int64
	bot      bool
	slots    []int64
	pick     int64
	morning  []int64
	opening  int  // the index of its opening in the run
	early    bool // clicked before the opening
	at, end  time.Time
	seedRand uint64
}

// RunFairness seeds the openings, runs both classes against them and reads
// who booked from the database.
func RunFairness(ctx context.Context, o FairnessOptions) (report.Fairness, error) {
	o = o.WithDefaults()
	pool, err := openPool(ctx, o.DatabaseURL, 4)
	if err != nil {
		return report.Fairness{}, err
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
		return report.Fairness{}, err
	}
	accounts := o.accounts(id, slots, first)
	left := placesLeft(accounts, o.Waves*o.Doctors)
	f := &fairRun{o: o, run: strconv.FormatUint(rand.Uint64(), 36), urls: strings.Split(o.GatewayURL, ","), http: &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: o.Doctors*o.Bots*o.BotConns + 1024}}}
	var wg sync.WaitGroup
	for _, a := range accounts {
		wg.Go(func() { f.client(ctx, a) })
	}
	wg.Wait()
	booked, err := bookedPerPatient(ctx, pool, slots)
	if err != nil {
		return report.Fairness{}, err
	}
	return f.report(accounts, booked, left, len(slots)), nil
}

// accounts deals the run's patients to the openings: per doctor first its
// one-click patients, then its bots, each with a first click drawn from the
// same window around its wave's opening and the time it would pick drawn
// alike from the doctor's slots.
func (o FairnessOptions) accounts(id loadtest.IDs, slots []slot, first time.Time) []account {
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 16))
	byDoctor, morning := map[int64][]int64{}, map[int64][]int64{}
	for _, s := range slots { // by doctor and start time
		byDoctor[s.Doctor] = append(byDoctor[s.Doctor], s.ID)
		if s.Start.In(o.Zone).Hour() < noon {
			morning[s.Doctor] = append(morning[s.Doctor], s.ID)
		}
	}
	var out []account
	for w := range o.Waves {
		opens := first.Add(time.Duration(w) * o.WaveGap)
		for d := range o.Doctors {
			doctor := id.Doctor(w*o.Doctors + d)
			mine := byDoctor[doctor]
			for k := range o.Patients + o.Bots {
				at := opens.Add(-o.Before + time.Duration(rng.Int64N(int64(o.Before+o.After))))
				out = append(out, account{patient: id.Patient(len(out)), bot: k >= o.Patients, slots: mine,
					pick: mine[rng.IntN(len(mine))], morning: morning[doctor][:min(len(morning[doctor]), maxAlternatives)],
					opening: w*o.Doctors + d, at: at, end: opens.Add(o.Until), early: at.Before(opens), seedRand: rng.Uint64()})
			}
		}
	}
	return out
}

// noon parts the page's morning from its afternoon (clinic time), and
// maxAlternatives is the API's bound on a booking's slots.
const (
	noon            = 12
	maxAlternatives = 20
)

// placesLeft is, per opening, how many of its slots the draw would leave:
// those no account that clicked before the opening would pick. The one
// place per slot goes to the first of its pre-queue in the lottery's
// order; a slot nobody there picked goes after the draw to whoever asks
// for it first. The count uses the time each account would pick (a bot's
// first try, a one-click patient's time on a page of one time per click)
// whatever it actually names, so that it marks the same openings whichever
// way the patients book and does not depend on who won.
func placesLeft(accounts []account, openings int) []int {
	picked := make([]map[int64]bool, openings)
	slots := make([]int, openings)
	for _, a := range accounts {
		if picked[a.opening] == nil {
			picked[a.opening] = map[int64]bool{}
		}
		slots[a.opening] = len(a.slots)
		if a.early {
			picked[a.opening][a.pick] = true
		}
	}
	left := make([]int, openings)
	for i := range left {
		left[i] = slots[i] - len(picked[i])
	}
	return left
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
