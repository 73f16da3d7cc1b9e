package budget_test

import (
	"flag"
	"os"
	"regexp"
	"testing"

	"termin/loadtest"
	"termin/loadtest/budget"
	"termin/loadtest/report"
)

var update = flag.Bool("update", false, "write the budget table into docs/performance.md")

// The performance page's budget table is Table's: the page and the tool
// have one source. With -update the test writes it.
func TestPerformancePageListsTheBudgets(t *testing.T) {
	const path = "../../docs/performance.md"
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<!-- budgets:[^>]*-->\n(.*?)<!-- /budgets -->`).FindSubmatchIndex(page)
	if m == nil {
		t.Fatalf("%s has no <!-- budgets: … --> … <!-- /budgets --> block", path)
	}
	want := budget.Markdown()
	if string(page[m[2]:m[3]]) == want {
		return
	}
	if !*update {
		t.Fatalf("%s's budget table differs from budget.Table; run go test ./budget -run TestPerformancePage -update, or write:\n%s", path, want)
	}
	page = append(append(append([]byte{}, page[:m[2]]...), want...), page[m[3]:]...)
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Judge holds each figure of the report's scenario to its bound: met on
// the right side of it (the bound itself included), missed on the wrong
// side, not measured (and so not met) where the run has no such figure.
func TestJudge(t *testing.T) {
	opening := func(posts, gets, first, later float64) *report.Report {
		r := &report.Report{Scenario: loadtest.ScenarioOpening, Settings: report.Settings{Duration: "3s"},
			Answers: []report.LatencyLine{{Key: "GET all", Count: 10, P99: gets}, {Key: "POST all", Count: 10, P99: posts}}}
		if first > 0 {
			r.Opening = []report.LatencyLine{{Key: "every decided click, first second", Count: 5, P99: first}}
		}
		if later > 0 { // the first second and the follow-up's repeats do not count
			r.Series = []report.SecondLine{{Second: 0, SentClicks: 9, P99: 900}, {Second: 1, SentClicks: 9, P99: later / 2},
				{Second: 2, SentClicks: 9, P99: later}, {Second: 3, SentRepeats: 9, P99: 900}}
		}
		return r
	}
	tests := []struct {
		name string
		r    *report.Report
		want []string
	}{
		{"opening within every bound", opening(50, 4, 99, 50), []string{"met", "met", "met", "met"}},
		{"opening on a busy machine", opening(139, 58.6, 539, 51), []string{"MISSED", "MISSED", "MISSED", "MISSED"}},
		{"opening without a first second", opening(5, 4, 0, 0), []string{"met", "met", "not measured", "not measured"}},
		{"knee ratio at least 5", &report.Report{Scenario: loadtest.ScenarioHotslotCompare, Compare: &report.Comparison{Ratio: 9.9}}, []string{"met"}},
		{"knee ratio below 5", &report.Report{Scenario: loadtest.ScenarioHotslotCompare, Compare: &report.Comparison{Ratio: 1.8}}, []string{"MISSED"}},
		{"every doctor's opening", &report.Report{Scenario: loadtest.ScenarioOpeningAll, Settings: report.Settings{Duration: "20s"},
			CPU: &report.CPUReport{Confirmed: 100, Processes: []report.CPULine{{Process: loadtest.LabelGenerator, Found: true, USPerBooking: 900},
				{Process: "gateway", Found: true, USPerBooking: 300}, {Process: "booker", Found: true, USPerBooking: 150}}},
			Morning: &report.Morning{Decisions: []report.LatencyLine{{Key: "every decided click", Count: 9, P50: 30, P99: 600}},
				Seconds: []report.MorningLine{{BacklogLine: report.BacklogLine{Second: 25, Backlog: 3}}, {BacklogLine: report.BacklogLine{Second: 26}}}}},
			[]string{"met", "MISSED", "met", "MISSED", "not measured"}},
		{"every doctor's opening against the seed's design", &report.Report{Scenario: loadtest.ScenarioOpeningAll,
			AgainstSeed: &report.SeedComparison{CPUUS: 600, SeedCPUUS: 2000, Ratio: 0.3}},
			[]string{"not measured", "not measured", "not measured", "not measured", "met"}},
		{"a scenario without budgets", &report.Report{Scenario: loadtest.ScenarioDay}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			budget.Judge(tt.r)
			var got []string
			for _, l := range tt.r.Budgets {
				got = append(got, l.Result())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("results %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("%s: %s (%s against %s), want %s", tt.r.Budgets[i].Budget, got[i], tt.r.Budgets[i].ValueText(), tt.r.Budgets[i].Limit, tt.want[i])
				}
			}
			if missed := budget.Missed(tt.r); len(missed) != count(tt.want, "MISSED")+count(tt.want, "not measured") {
				t.Errorf("Missed lists %v", missed)
			}
		})
	}
}

func count(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}
