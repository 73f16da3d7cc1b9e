package scenario

import (
	"context"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
	"termin/loadtest/report"
)

// SeedDirectory and SearchPath are the day's directory and searches, for
// the black-box tests.
var (
	SeedDirectory = seedDirectory
	SearchPath    = searchPath
)

// BurstPacer is the day's pacer with a burst from `from` to `to`.
func BurstPacer(base, burst float64, from, to time.Duration) vegeta.Pacer {
	return burstPacer{base: base, burst: burst, from: from, to: to}
}

// FairAccount is one account of the fairness scenario as its report sees it.
type FairAccount struct {
	Patient    int64
	Bot, Early bool
	Opening    int
	Slots      []int64
	Pick       int64
}

func accountsOf(in []FairAccount) []account {
	out := make([]account, len(in))
	for i, a := range in {
		out[i] = account{patient: a.Patient, bot: a.Bot, early: a.Early, opening: a.Opening, slots: a.Slots, pick: a.Pick}
	}
	return out
}

// PlacesLeft is placesLeft of the accounts.
func PlacesLeft(in []FairAccount, openings int) []int { return placesLeft(accountsOf(in), openings) }

// FairReport is the report of a run of the accounts in which each patient
// booked as many places as booked says.
func FairReport(in []FairAccount, openings int, booked map[int64]int, places int) report.Fairness {
	f := &fairRun{o: FairnessOptions{Waves: 1, Doctors: openings}}
	return f.report(accountsOf(in), booked, placesLeft(accountsOf(in), openings), places)
}

// SeedSlots seeds doctors × perDay slots of one day, open now, one place
// each, as a scenario's bulk load does.
func SeedSlots(ctx context.Context, pool *pgxpool.Pool, id loadtest.IDs, doctors, perDay int) error {
	_, err := seedSlots(ctx, pool, id, time.UTC, []grid{{doctors: doctors, days: 1, perDay: perDay, capacity: fixed(1)}}, io.Discard)
	return err
}
