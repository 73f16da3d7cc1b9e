package system_test

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core 4.14.1 as npm serves it (testdata/axe/README.md):
// the accessibility rules the page tests hold every state of both pages to.
// It lives with the tests, not the pages: a patient's browser never loads it.
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// axeSHA256 is the hash of the vendored axe.min.js; a new version is taken
// as testdata/axe/README.md says and this hash changed with it.
const axeSHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"

// axeTags are the rule sets checked: WCAG 2.0 and 2.1, levels A and AA, the
// level BITV 2.0 and the European Accessibility Act's standard ask for.
const axeTags = `['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']`

// axeViolation is one rule a page state breaks, with the elements that
// break it.
type axeViolation struct {
	ID    string `json:"id"`
	Help  string `json:"help"`
	Nodes []struct {
		Target  []string `json:"target"`
		Summary string   `json:"failureSummary"`
	} `json:"nodes"`
}

func (v axeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s):", v.ID, v.Help)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n    %v: %s", n.Target, strings.ReplaceAll(n.Summary, "\n", "; "))
	}
	return b.String()
}

// axeCheck runs axe-core on the tab's page as it is now and fails the test
// for every WCAG 2.1 A or AA violation, naming the state checked.
func (p *tab) axeCheck(state string) {
	p.t.Helper()
	if eval[bool](p, `typeof window.axe === 'undefined'`) {
		eval[bool](p, axeSource+";\ntrue")
	}
	js := `axe.run(document, {runOnly: {type: 'tag', values: ` + axeTags + `}, resultTypes: ['violations']})
	  .then(r => JSON.stringify(r.violations))`
	raw := result(p, "axe on "+state, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	var found []axeViolation
	if err := json.Unmarshal([]byte(raw), &found); err != nil {
		p.t.Fatalf("axe on %s: %v", state, err)
	}
	for _, v := range found {
		p.t.Errorf("%s: %s", state, v)
	}
}

func TestVendoredAxeIsAsTaken(t *testing.T) {
	sum := sha256.Sum256([]byte(axeSource))
	if got := hex.EncodeToString(sum[:]); got != axeSHA256 {
		t.Fatalf("testdata/axe/axe.min.js has SHA-256 %s, want %s: take it as testdata/axe/README.md says", got, axeSHA256)
	}
	if !strings.HasPrefix(axeSource, "/*! axe v4.14.1") {
		t.Fatalf("testdata/axe/axe.min.js is not axe-core 4.14.1")
	}
}
