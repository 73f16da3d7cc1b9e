package loadtest

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// The scenarios Run knows.
const (
	ScenarioOpening   = "opening"
	ScenarioSustained = "sustained"
	ScenarioDay       = "day"
	// ScenarioOpeningAll opens every doctor's day at one instant (the 07:00
	// roll-forward) and spreads clicks over all their slots.
	ScenarioOpeningAll = "opening-all"
	// ScenarioHotslotCompare runs the sustained ramp twice in one run: through
	// the whole system, and against the seed's one-transaction-per-request
	// design (package seedbaseline) on the same database.
	ScenarioHotslotCompare = "hotslot-compare"
	// ScenarioDayCompare runs the day twice in one run: through the system,
	// then against the seed's design with its reads cached in Redis.
	ScenarioDayCompare = "day-compare"
	// ScenarioFairness measures who wins an opening: one-click patients
	// beside bot accounts that hold many connections, repeat at once instead
	// of after Retry-After, and rotate keys within the per-patient limit.
	ScenarioFairness = "fairness"
	// ScenarioHotslotClosed runs one hot slot in a closed loop at each of
	// ClosedConns, through the gateway and against the seed's design.
	ScenarioHotslotClosed = "hotslot-closed"
)

// The click spreads of the opening-all scenario.
const (
	SkewUniform = "uniform"
	SkewZipf    = "zipf"
)

// Options configure one run. Zero values take the scenario's defaults (see
// WithDefaults), so that a test can shrink a run by naming only what differs.
type Options struct {
	Scenario   string
	GatewayURL string
	// AuthToken is sent as the bearer token of every request: an admin's,
	// since the run books for thousands of patients. Empty sends none.
	AuthToken        string
	BookerMetricsURL string // empty skips the booker's metrics
	DatabaseURL      string
	// Rate is the offered rate of new booking clicks per second (the first
	// step of the ramp in the sustained scenario). Repeats after 202/503 come
	// on top, at the time the server asked for.
	Rate float64
	// Duration is how long new clicks are sent (the longest ramp in sustained).
	Duration time.Duration
	// ReadsRate is the rate of slot-list reads sent alongside; negative turns them off.
	ReadsRate float64
	OutDir    string
	// Seed drives every random choice and the run's doctor and patient ids,
	// which lie in a high range so that runs never collide with demo data or
	// with each other.
	Seed int64
	// Patients is the number of distinct patients clicking (opening, day).
	Patients int
	// SingleSlots and GroupSlots are the popular doctor's slots with one and
	// with GroupCapacity places (opening).
	SingleSlots, GroupSlots, GroupCapacity int
	// ReadDoctors are the other doctors whose slot lists are read (opening, sustained).
	ReadDoctors int
	// Impatient is the share of clicks followed by a second click (a new key)
	// of the same patient on the same slot; negative means none.
	Impatient float64
	// FollowUp bounds how long queued clicks are followed after the last new
	// click; a click still undecided then fails the "answered" check.
	FollowUp time.Duration
	// RampStep and StepDuration shape the sustained ramp; HugeCapacity is its slot's size.
	RampStep     float64
	StepDuration time.Duration
	HugeCapacity int
	// SearchShare is the share of the day scenario's reads that are
	// searches (GET /api/doctors with a specialty and a place); the rest are
	// slot lists. 0 means 0.5; negative, none.
	SearchShare float64
	// BurstAfter, when positive, runs the popular doctor's 7:00 burst inside
	// the day scenario: BurstAfter into the load, for BurstFor, new clicks
	// come at BurstRate on that doctor's slots (SingleSlots and GroupSlots,
	// open for booking) instead of at Rate over the fortnight, while the
	// reads go on; the report gives the reads' latencies during the burst.
	BurstAfter, BurstFor time.Duration
	BurstRate            float64
	// DayDoctors, DayDays and DaySlots shape the day scenario's clinic.
	DayDoctors, DayDays, DaySlots int
	// AllDoctors × AllSlots are the opening-all scenario's slots, a share
	// GroupShare of them with GroupCapacity places, the rest with one.
	AllDoctors, AllSlots int
	GroupShare           float64
	// OpensIn places the opening OpensIn after seeding began: the popular
	// doctor's slots (opening) or every doctor's day (opening-all) open
	// then, and the clicks begin then, as at 07:00, while a person at the
	// page can already see the slots. A negative value in opening opens the
	// slots at once and clicks right after seeding.
	OpensIn time.Duration
	// OnOpening, when set, is told the opening scenario's popular doctor,
	// its slots and its opening once they are seeded, before the first click.
	OnOpening func(Opening)
	// Skew spreads the opening-all clicks: SkewUniform over all slots, or
	// SkewZipf over doctors by popularity (exponent ZipfS > 1), uniform over
	// the chosen doctor's slots.
	Skew  string
	ZipfS float64
	// SettleTimeout bounds the wait after the load for the system to catch
	// up (outbox relayed, streams drained) before CPU is read the second time.
	SettleTimeout time.Duration
	// Conns bounds the connections the clicks and the repeats may each
	// open (the reads at most 2,000); 0 = 8,000. A run in the same process
	// as the system it loads, whose answers take descriptors too, sets fewer.
	Conns int
	// Processes are the groups of processes whose CPU the report charges per
	// confirmed booking; nil means DefaultProcesses. The load generator
	// itself is always measured.
	Processes []ProcessGroup
	// RedisURL is the seed design's Redis, its cache and booking gate
	// (day-compare, -against-seed); SeedCacheTTL how long it keeps a read
	// (the seed says 3 to 5 seconds).
	RedisURL     string
	SeedCacheTTL time.Duration
	// BaselineConns is the seed baseline's pool size (hotslot-compare,
	// hotslot-closed).
	BaselineConns int
	// ClosedConns are the closed loop's concurrencies (hotslot-closed),
	// each run for StepDuration.
	ClosedConns []int
	// AgainstSeed runs the same load against the seed's design after the
	// gateway's run, in the same run (opening, opening-all).
	AgainstSeed bool
	// Zone is the clinic's time zone, in which slot-list dates are read.
	Zone *time.Location
	// Progress receives the progress bar; nil shows none.
	Progress io.Writer
	// Strict fails a run that missed a budget of its scenario (package
	// budget) with ErrBudget; otherwise a missed budget is only reported.
	Strict bool
}

// WithDefaults fills every zero field with the scenario's default.
func (o Options) WithDefaults() Options {
	if o.Scenario == "" {
		o.Scenario = ScenarioOpening
	}
	d := scenarioDefaults[o.Scenario]
	Default(&o.Rate, d.rate)
	Default(&o.Duration, d.duration)
	if o.Scenario != ScenarioDay {
		Default(&o.ReadsRate, d.reads)
	}
	Default(&o.Patients, 20_000)
	Default(&o.SingleSlots, 30)
	Default(&o.GroupSlots, 10)
	Default(&o.GroupCapacity, 10)
	Default(&o.ReadDoctors, 20)
	Default(&o.Impatient, 0.05)
	o.Impatient = max(o.Impatient, 0)
	Default(&o.FollowUp, 60*time.Second)
	Default(&o.RampStep, 500)
	Default(&o.StepDuration, 5*time.Second)
	Default(&o.HugeCapacity, 1_000_000)
	Default(&o.DayDoctors, 2_000)
	Default(&o.DayDays, 14)
	Default(&o.DaySlots, 40)
	Default(&o.AllDoctors, 2_000)
	Default(&o.AllSlots, 40)
	Default(&o.GroupShare, 0.1)
	Default(&o.OpensIn, 10*time.Second)
	if o.Skew == "" {
		o.Skew = SkewUniform
	}
	Default(&o.ZipfS, 1.1)
	Default(&o.SettleTimeout, 2*time.Minute)
	Default(&o.BaselineConns, 20)
	if o.RedisURL == "" {
		o.RedisURL = "redis://127.0.0.1:6379/0"
	}
	Default(&o.SeedCacheTTL, 5*time.Second)
	if len(o.ClosedConns) == 0 {
		o.ClosedConns = []int{8, 16, 32, 64, 128, 256}
	}
	Default(&o.Conns, 8_000)
	if o.Processes == nil {
		o.Processes = DefaultProcesses()
	}
	Default(&o.BurstFor, 10*time.Second)
	Default(&o.BurstRate, 5_000)
	day := o.Scenario == ScenarioDay || o.Scenario == ScenarioDayCompare
	if day && o.SearchShare == 0 {
		o.SearchShare = 0.5
	}
	o.SearchShare = max(o.SearchShare, 0)
	if day && o.ReadsRate == 0 {
		o.ReadsRate = 50 * o.Rate // the day's mix: fifty reads per write
	}
	if o.Zone == nil {
		o.Zone = time.UTC
	}
	if o.OutDir == "" {
		o.OutDir = filepath.Join("loadtest-results", time.Now().Format("20060102-150405"))
	}
	if o.Seed == 0 {
		o.Seed = time.Now().UnixNano()
	}
	return o
}

type defaults struct {
	rate, reads float64
	duration    time.Duration
}

var scenarioDefaults = map[string]defaults{
	ScenarioOpening:    {rate: 5_000, reads: 1_000, duration: 30 * time.Second},
	ScenarioSustained:  {rate: 500, reads: -1, duration: 120 * time.Second},
	ScenarioDay:        {rate: 20, duration: 60 * time.Second},
	ScenarioDayCompare: {rate: 20, duration: 60 * time.Second},
	// The morning of 2,000 doctors: 1,000 clicks/s for 20 s, no reads.
	ScenarioOpeningAll:     {rate: 1_000, reads: -1, duration: 20 * time.Second},
	ScenarioHotslotCompare: {rate: 500, reads: -1, duration: 120 * time.Second},
	ScenarioHotslotClosed:  {rate: 1, reads: -1, duration: time.Second},
}

// Validate reports options that cannot make a meaningful run.
func (o Options) Validate() error {
	var errs []error
	if _, ok := scenarioDefaults[o.Scenario]; !ok {
		errs = append(errs, fmt.Errorf("unknown scenario %q (want opening, sustained, day, day-compare, opening-all, hotslot-compare or hotslot-closed)", o.Scenario))
	}
	if o.Skew != SkewUniform && o.Skew != SkewZipf {
		errs = append(errs, fmt.Errorf("unknown skew %q (want uniform or zipf)", o.Skew))
	}
	if o.ZipfS <= 1 || o.GroupShare < 0 || o.GroupShare > 1 || o.AllDoctors <= 0 || o.AllDoctors > 10_000 || o.AllSlots <= 0 || o.AllSlots > 64 {
		errs = append(errs, errors.New("zipf exponent must exceed 1, group share lie in [0,1], doctors in 1..10000, slots per doctor in 1..64 (one day of 15-minute slots from 08:00)"))
	}
	if o.GatewayURL == "" || o.DatabaseURL == "" {
		errs = append(errs, errors.New("the gateway URL and the database URL are required"))
	}
	if o.Rate <= 0 || o.Duration <= 0 {
		errs = append(errs, errors.New("rate and duration must be positive"))
	}
	if o.Patients <= 0 || o.SingleSlots+o.GroupSlots <= 0 || o.Impatient < 0 || o.Impatient > 1 {
		errs = append(errs, errors.New("patients and slots must be positive, impatient a share in [0,1]"))
	}
	return errors.Join(errs...)
}

// Default sets *v to d when *v is its zero value: an option left unset
// takes its default.
func Default[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
