package system_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// repoRoot is where docker-compose.yml and deploy/ live, seen from system/.
const repoRoot = ".."

// TestDashboardAndAlertsNameMetricsThatExist scrapes a running gateway and
// booker after a few bookings and checks that every metric the dashboard's
// panels and the alert rules query is one of theirs: a renamed metric must
// not leave an SRE with an empty panel or a silent alert.
func TestDashboardAndAlertsNameMetricsThatExist(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	for i := range 3 {
		s.mustDo("POST", "/api/appointments", fmt.Sprintf("deploy-%d", i), bookBody(slot, int64(700+i)))
	}
	s.mustDo("GET", "/api/appointments/999999", "", nil)
	scraped := scrapeNames(t, s.gateway.URL()+"/metrics")
	for name, typ := range scrapeNames(t, "http://"+s.booker.Addr()+"/metrics") {
		scraped[name] = typ
	}
	queries := append(dashboardQueries(t), alertQueries(t)...)
	if len(queries) < 20 {
		t.Fatalf("found only %d queries in the dashboard and the alert rules", len(queries))
	}
	used := map[string]bool{}
	for _, q := range queries {
		for _, name := range metricNames(q) {
			used[name] = true
			if !exists(scraped, name) {
				t.Errorf("metric %q of query %q is not exported by the gateway or the booker", name, q)
			}
		}
	}
	for _, must := range []string{"booker_queue_pending", "booker_bookings_total", "gateway_booking_duration_seconds_bucket",
		"booker_reserve_duration_seconds_bucket", "gateway_waiting_room_size", "gateway_requests_total", "outbox_lag_seconds",
		"booker_db_pool_acquired_conns", "booker_redeliveries_total", "gateway_ready", "booker_ready"} {
		if !used[must] {
			t.Errorf("neither the dashboard nor the alerts use %s", must)
		}
	}
}

// scrapeNames reads a /metrics page and returns its metric families by type.
func scrapeNames(t *testing.T, url string) map[string]string {
	t.Helper()
	names := map[string]string{}
	for line := range strings.Lines(scrape(t, url)) {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			names[f[2]] = f[3]
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s exported no metric", url)
	}
	return names
}

// exists accepts a family's own name, and a histogram's or summary's series.
func exists(scraped map[string]string, name string) bool {
	if name == "up" { // made by Prometheus for every target
		return true
	}
	if _, ok := scraped[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			typ := scraped[base]
			return typ == "histogram" || (typ == "summary" && suffix != "_bucket")
		}
	}
	return false
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promToken     = regexp.MustCompile(`[a-zA-Z0-9_:.]+(\s*\()?`)
	promOperators = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
		"group_left", "group_right", "inf", "nan"}
)

// scrape reads a /metrics page.
func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// metricNames pulls the metric names out of a PromQL expression, roughly:
// strings, label matchers, groupings and ranges are dropped, and of the
// identifiers left those not called like a function and not a keyword are
// metric names. It is enough for the queries of this repository.
func metricNames(expr string) []string {
	expr = promStrings.ReplaceAllString(expr, `""`)
	expr = promMatchers.ReplaceAllString(expr, " ")
	expr = promGrouping.ReplaceAllString(expr, " ")
	expr = promRanges.ReplaceAllString(expr, " ")
	var names []string
	for _, m := range promToken.FindAllStringSubmatch(expr, -1) {
		name := strings.TrimSpace(strings.TrimSuffix(m[0], "("))
		if m[1] != "" || strings.ContainsAny(name[:1], "0123456789.") || slices.Contains(promOperators, strings.ToLower(name)) {
			continue // a function, a number or duration, a keyword
		}
		names = append(names, name)
	}
	return names
}

func TestMetricNamesParsesPromQL(t *testing.T) {
	t.Parallel()
	got := metricNames(`histogram_quantile(0.99, sum by (le) (rate(a_bucket{code="5xx",x=~"y|z"}[5m]))) > 2 and max(b) or c unless on(instance) d offset 5m`)
	if want := []string{"a_bucket", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("metricNames = %v, want %v", got, want)
	}
}

// dashboard is the part of a Grafana dashboard the tests look at.
type dashboard struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Panels []struct {
		Type    string `json:"type"`
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// dashboardQueries parses the provisioned dashboard and returns its queries.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "deploy/grafana/dashboards/termin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("termin.json: %v", err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard without uid or title")
	}
	var queries []string
	for _, p := range d.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			queries = append(queries, checkBalanced(t, tg.Expr))
		}
	}
	return queries
}

// alertRules is a Prometheus rule file.
type alertRules struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// alertQueries parses the alert rules, checks each has what Alertmanager and
// an on-call reader need, and returns their expressions.
func alertQueries(t *testing.T) []string {
	t.Helper()
	var rules alertRules
	readYAML(t, "deploy/prometheus/alerts.yml", &rules)
	var queries []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %+v lacks alert, expr, severity or summary", r)
			}
			if r.For != "" {
				if _, err := time.ParseDuration(r.For); err != nil {
					t.Errorf("rule %s: for %q: %v", r.Alert, r.For, err)
				}
			}
			queries = append(queries, checkBalanced(t, r.Expr))
		}
	}
	return queries
}

// checkBalanced catches the typo a rough parse would miss: unbalanced brackets.
func checkBalanced(t *testing.T, expr string) string {
	t.Helper()
	depth := map[rune]int{}
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, c := range promStrings.ReplaceAllString(expr, `""`) {
		switch c {
		case '(', '[', '{':
			depth[c]++
		case ')', ']', '}':
			depth[pairs[c]]--
		}
	}
	for c, d := range depth {
		if d != 0 {
			t.Errorf("unbalanced %c in %q", c, expr)
		}
	}
	return expr
}

// composeVar is a ${NAME} or ${NAME:-default} of a compose file.
var composeVar = regexp.MustCompile(`\$\{[A-Z0-9_]+(?::-([^}]*))?\}`)

// readYAML decodes a file of the repository after interpolating variables as
// Docker Compose does with an empty environment: ${NAME:-default} is default.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	raw = composeVar.ReplaceAll(raw, []byte("$1"))
	if err := yaml.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
