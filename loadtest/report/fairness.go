package report

import (
	"fmt"
	"io"
	"math"
)

// FairBand is how far a one-click patient's chance may be from a bot
// account's: ±10 %, overall and after the draw.
const FairBand = 0.10

// z95 is the normal quantile of a two-sided 95 % interval.
const z95 = 1.959964

// Class is one class of accounts' outcome.
type Class struct {
	Name              string
	Accounts, Winners int
	Requests          int64
}

// WinRate is the share of the class's accounts that booked.
func (c Class) WinRate() float64 { return float64(c.Winners) / float64(max(c.Accounts, 1)) }

// Wilson is the 95 % Wilson score interval of the win rate.
func (c Class) Wilson() (lo, hi float64) {
	n := float64(c.Accounts)
	if n == 0 {
		return 0, 1
	}
	p, z2 := c.WinRate(), z95*z95
	mid := (p + z2/(2*n)) / (1 + z2/n)
	half := z95 / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return max(mid-half, 0), min(mid+half, 1)
}

// Fairness is the scenario's result. Classes are the one-click
// patients, the bot accounts, then each split by whether it clicked before
// or after its opening. AfterDraw are the two classes again, counting only
// the accounts of openings that leave places after the draw.
type Fairness struct {
	Classes          []Class
	AfterDraw        [2]Class
	Places, Openings int
	// LeftOpenings and LeftPlaces count the openings whose draw leaves
	// places, and those places (placesLeft).
	LeftOpenings, LeftPlaces int
	BotConns                 int
	// Doubles counts accounts holding more than one appointment: each
	// account wants one opening, and holds one place there.
	Doubles int
}

// Ratio is a one-click patient's win rate over a bot account's (1 is fair).
func (r Fairness) Ratio() float64 { return Ratio(r.Classes[0], r.Classes[1]) }

// RatioCI is the 95 % interval of Ratio (RatioCI of the two classes).
func (r Fairness) RatioCI() (lo, hi float64, ok bool) {
	return RatioCI(r.Classes[0], r.Classes[1])
}

// AfterDrawRatio is Ratio over the openings that leave places after the
// draw, where a bot's second attempt would win what a one-time click cannot.
func (r Fairness) AfterDrawRatio() float64 { return Ratio(r.AfterDraw[0], r.AfterDraw[1]) }

// AfterDrawCI is the 95 % interval of AfterDrawRatio.
func (r Fairness) AfterDrawCI() (lo, hi float64, ok bool) {
	return RatioCI(r.AfterDraw[0], r.AfterDraw[1])
}

// Ratio is a's win rate over b's.
func Ratio(a, b Class) float64 { return a.WinRate() / math.Max(b.WinRate(), 1e-12) }

// RatioCI is the 95 % interval of Ratio(a, b) by the log method (Katz); ok
// is false while a class has no winner or both nothing but winners, where
// it is not defined.
func RatioCI(a, b Class) (lo, hi float64, ok bool) {
	if a.Winners == 0 || b.Winners == 0 || a.Winners == a.Accounts && b.Winners == b.Accounts {
		return 0, math.Inf(1), false
	}
	se := math.Sqrt(1/float64(a.Winners) - 1/float64(a.Accounts) + 1/float64(b.Winners) - 1/float64(b.Accounts))
	l := math.Log(Ratio(a, b))
	return math.Exp(l - z95*se), math.Exp(l + z95*se), true
}

// Verdict judges one ratio's interval against ±FairBand: "PASS" when the
// whole interval lies within it, else why not.
func Verdict(lo, hi float64, ok bool) string {
	switch {
	case !ok:
		return "FAIL (not defined: a class with no winner or only winners)"
	case hi < 1-FairBand:
		return "FAIL (outside ±10 %: bots ahead)"
	case lo > 1+FairBand:
		return "FAIL (outside ±10 %: one-click patients ahead)"
	case lo < 1-FairBand || hi > 1+FairBand:
		return "FAIL (the interval is wider than ±10 %: more accounts, or more waves, are needed to tell)"
	}
	return "PASS"
}

// Fair reports whether the whole 95 % interval of the ratio lies within
// ±FairBand of 1, overall and after the draw, and no account holds two
// places: then the run shows the chances equal within the band.
func (r Fairness) Fair() bool {
	return Verdict(r.RatioCI()) == "PASS" && Verdict(r.AfterDrawCI()) == "PASS" && r.Doubles == 0
}

// WriteText prints the report.
func (r Fairness) WriteText(w io.Writer) {
	fmt.Fprintf(w, "fairness: %d openings, %d places; bots hold %d connections each\n", r.Openings, r.Places, r.BotConns)
	fmt.Fprintf(w, "%-28s %9s %8s %9s %17s %10s\n", "class", "accounts", "booked", "win rate", "95 % CI (Wilson)", "requests")
	for i, c := range r.Classes {
		requests := fmt.Sprint(c.Requests)
		if i >= 2 {
			requests = "" // a split of the classes above
		}
		lo, hi := c.Wilson()
		fmt.Fprintf(w, "%-28s %9d %8d %8.1f%% %7.1f – %5.1f%% %10s\n", c.Name, c.Accounts, c.Winners, 100*c.WinRate(),
			100*lo, 100*hi, requests)
	}
	fmt.Fprintf(w, "after the draw: %d of %d openings leave %d places to whoever asks first\n", r.LeftOpenings, r.Openings, r.LeftPlaces)
	for _, c := range r.AfterDraw {
		lo, hi := c.Wilson()
		fmt.Fprintf(w, "  %-26s %9d %8d %8.1f%% %7.1f – %5.1f%%\n", c.Name, c.Accounts, c.Winners, 100*c.WinRate(), 100*lo, 100*hi)
	}
	if r.Doubles > 0 {
		fmt.Fprintf(w, "accounts holding two appointments: %d (each may hold one place): FAIL\n", r.Doubles)
	}
	lo, hi, ok := r.RatioCI()
	writeRatio(w, "one-click / bot win rate", r.Ratio(), lo, hi, ok)
	lo, hi, ok = r.AfterDrawCI()
	writeRatio(w, "  after the draw", r.AfterDrawRatio(), lo, hi, ok)
}

// writeRatio prints one ratio with its interval and verdict.
func writeRatio(w io.Writer, name string, ratio, lo, hi float64, ok bool) {
	if !ok {
		fmt.Fprintf(w, "%s: %s\n", name, Verdict(lo, hi, ok))
		return
	}
	fmt.Fprintf(w, "%s: %.3f, 95 %% CI %.3f – %.3f (log method); within ±10 %%: %s\n", name, ratio, lo, hi, Verdict(lo, hi, ok))
}
