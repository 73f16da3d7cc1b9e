package scenario

import "termin/loadtest/report"

// report counts winners per class from each patient's appointments; left
// is placesLeft's count per opening.
func (f *fairRun) report(accounts []account, booked map[int64]int, left []int, places int) report.Fairness {
	rep := report.Fairness{Places: places, Openings: f.o.Waves * f.o.Doctors, BotConns: f.o.BotConns,
		Classes: []report.Class{{Name: "one-click patients", Requests: f.patientReqs.Load()},
			{Name: "bot accounts", Requests: f.botReqs.Load()},
			{Name: "  one-click, clicked before"}, {Name: "  one-click, clicked after"},
			{Name: "  bots, clicked before"}, {Name: "  bots, clicked after"}},
		AfterDraw: [2]report.Class{{Name: "one-click patients"}, {Name: "bot accounts"}}}
	for _, n := range left {
		if n > 0 {
			rep.LeftOpenings++
			rep.LeftPlaces += n
		}
	}
	for _, a := range accounts {
		class, split := 0, 2
		if a.bot {
			class, split = 1, 4
		}
		if !a.early {
			split++
		}
		n := booked[a.patient]
		for _, c := range []int{class, split} {
			rep.Classes[c].Accounts++
			if n > 0 {
				rep.Classes[c].Winners++
			}
		}
		if n > 1 {
			rep.Doubles++
		}
		if left[a.opening] > 0 {
			rep.AfterDraw[class].Accounts++
			if n > 0 {
				rep.AfterDraw[class].Winners++
			}
		}
	}
	return rep
}
