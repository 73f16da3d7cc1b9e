package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ruleTests is promtool's rule test file: its tests' alert checks.
type ruleTests struct {
	RuleFiles []string `yaml:"rule_files"`
	Tests     []struct {
		AlertRuleTest []struct {
			AlertName string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	} `yaml:"tests"`
}

// TestAlertRulesPassTheirUnitTests runs `promtool test rules` over
// deploy/prometheus/alerts_test.yml, after checking that it tests every alert
// of alerts.yml both firing and quiet: a rule whose expression or `for:` is
// wrong is caught here, not on the night it should page. Without promtool it
// fails, saying what to install (`make prereqs` installs it).
func TestAlertRulesPassTheirUnitTests(t *testing.T) {
	t.Parallel()
	promtool := findPromTool(t)
	var rules alertRules
	readYAML(t, "deploy/prometheus/alerts.yml", &rules)
	var tests ruleTests
	readYAML(t, "deploy/prometheus/alerts_test.yml", &tests)
	if !slices.Equal(tests.RuleFiles, []string{"alerts.yml"}) {
		t.Errorf("alerts_test.yml tests %v, want [alerts.yml]", tests.RuleFiles)
	}
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, a := range tc.AlertRuleTest {
			fires[a.AlertName] = fires[a.AlertName] || len(a.ExpAlerts) > 0
			quiet[a.AlertName] = quiet[a.AlertName] || len(a.ExpAlerts) == 0
		}
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if !fires[r.Alert] || !quiet[r.Alert] {
				t.Errorf("alert %s: alerts_test.yml must test it firing (%v) and quiet (%v)", r.Alert, fires[r.Alert], quiet[r.Alert])
			}
		}
	}
	cmd := exec.Command(promtool, "test", "rules", "alerts_test.yml")
	cmd.Dir = filepath.Join(repoRoot, "deploy/prometheus")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules alerts_test.yml: %v\n%s", err, out)
	}
}

// findPromTool finds promtool on PATH, in Debian's /usr/bin or Homebrew's
// prefixes, or fails the test naming the package.
func findPromTool(t *testing.T) string {
	t.Helper()
	return findPrometheusBinary(t, "promtool")
}

// findPrometheusBinary finds promtool or prometheus as findPromTool does.
func findPrometheusBinary(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/bin", "/opt/homebrew/bin", "/usr/local/bin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	t.Fatalf("%s not found: run `make prereqs`, or install it (Debian/Ubuntu: apt-get install prometheus; macOS: brew install prometheus)", name)
	return ""
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 && !strings.HasSuffix(path, "/")
}
