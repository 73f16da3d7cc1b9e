package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"gopkg.in/yaml.v3"
	bookerapp "termin/booker/app"
	gatewayapp "termin/gateway/app"
	"termin/system"
)

// The documentation pages these tests hold to the code, relative to system/.
const (
	operationsDoc = "../docs/operations.md"
	alertsFile    = "../deploy/prometheus/alerts.yml"
)

// TestDocsSettingsTable keeps the settings table of docs/operations.md true:
// every environment variable bin/gateway, bin/booker and make run read (the
// binaries' own lists, derived from the flags -h prints) is a row, its
// "read by" column names exactly the binaries that read it, and the table
// names no variable that nothing reads.
func TestDocsSettingsTable(t *testing.T) {
	want := map[string][]string{}
	add := func(reader string, names []string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s's settings: %v", reader, err)
		}
		for _, n := range names {
			if !slices.Contains(want[n], reader) {
				want[n] = append(want[n], reader)
			}
		}
	}
	gw, err := gatewayapp.Variables()
	add("gateway", gw, err)
	bk, err := bookerapp.Variables()
	add("booker", bk, err)
	add("run", system.RunVariables, nil)

	table := settingsTable(t)
	for name, readers := range want {
		documented, ok := table[name]
		switch {
		case !ok:
			t.Errorf("%s is read by %s but missing from the settings table of docs/operations.md", name, strings.Join(readers, ", "))
		case !sameSet(documented, readers):
			t.Errorf("%s: the settings table says it is read by %q, the code: %q", name, strings.Join(documented, ", "), strings.Join(readers, ", "))
		}
	}
	for name := range table {
		if _, ok := want[name]; !ok {
			t.Errorf("the settings table of docs/operations.md names %s, which no binary reads", name)
		}
	}
}

// TestDocsSettingsTableCoversEveryRead is the settings table's backstop for
// a variable read outside the binaries' flags: every environment variable a
// package linked into bin/gateway, bin/booker or make run reads by name is
// in the table.
func TestDocsSettingsTableCoversEveryRead(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}|{{.Dir}}|{{join .GoFiles \",\"}}",
		"termin/gateway/cmd/gateway", "termin/booker/cmd/booker", "termin/system/cmd/run").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	read := regexp.MustCompile(`(?:os\.Getenv|os\.LookupEnv|envconf\.(?:String|Int|Duration))\("([A-Z][A-Z0-9_]*)"`)
	table := settingsTable(t)
	files := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "termin/") || parts[2] == "" {
			continue
		}
		for _, name := range strings.Split(parts[2], ",") {
			src, err := os.ReadFile(filepath.Join(parts[1], name))
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, m := range read.FindAllStringSubmatch(string(src), -1) {
				if _, ok := table[m[1]]; !ok {
					t.Errorf("%s/%s reads %s, which the settings table of docs/operations.md lacks", parts[0], name, m[1])
				}
			}
		}
	}
	if files < 50 {
		t.Fatalf("go list found only %d source files of the binaries", files)
	}
}

// settingsTable reads the rows of the "## Settings" table of
// docs/operations.md: each variable of the first column with the readers
// of the second.
func settingsTable(t *testing.T) map[string][]string {
	t.Helper()
	section := docSection(t, operationsDoc, "Settings")
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
	table := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		var readers []string
		for _, r := range strings.Split(cells[2], ",") {
			readers = append(readers, strings.TrimSpace(r))
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			if _, dup := table[m[1]]; dup {
				t.Errorf("the settings table names %s twice", m[1])
			}
			table[m[1]] = readers
		}
	}
	if len(table) < 20 {
		t.Fatalf("found only %d variables in the settings table of %s", len(table), operationsDoc)
	}
	return table
}

// TestDocsRunbookNamesEveryAlert: each rule of deploy/prometheus/alerts.yml
// has a row in the runbook of docs/operations.md, and the runbook names no
// alert that is not a rule.
func TestDocsRunbookNamesEveryAlert(t *testing.T) {
	data, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatal(err)
	}
	var alerts []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
		}
	}
	if len(alerts) == 0 {
		t.Fatal("no alert rules in " + alertsFile)
	}
	runbook := map[string]bool{}
	for _, line := range strings.Split(docSection(t, operationsDoc, "Alerts and runbook"), "\n") {
		if m := regexp.MustCompile("^\\| `([A-Za-z0-9]+)` \\|").FindStringSubmatch(line); m != nil {
			runbook[m[1]] = true
		}
	}
	for _, a := range alerts {
		if !runbook[a] {
			t.Errorf("alert %s has no runbook entry in docs/operations.md", a)
		}
		delete(runbook, a)
	}
	for a := range runbook {
		t.Errorf("docs/operations.md's runbook names %s, which alerts.yml does not define", a)
	}
}

// TestDocsLinksResolve: every relative link of README.md and docs/**/*.md
// (Markdown links and images, HTML src and href) names a file or directory
// that exists, and its #anchor, in a Markdown file, one of the target's
// headings as GitHub makes them.
func TestDocsLinksResolve(t *testing.T) {
	pages := []string{"../README.md"}
	err := filepath.WalkDir("../docs", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // by cleaned path
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		anchors[path] = headingAnchors(string(data))
		return anchors[path]
	}
	links := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range relativeLinks(string(data)) {
			links++
			target, anchor, _ := strings.Cut(link, "#")
			path := filepath.Clean(page)
			if target != "" {
				path = filepath.Join(filepath.Dir(page), target)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which does not exist", page, link)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
				t.Errorf("%s links to %s: %s has no heading whose anchor is #%s", page, link, path, anchor)
			}
		}
	}
	if links < 30 {
		t.Fatalf("found only %d relative links in %d pages", links, len(pages))
	}
}

var (
	fence      = regexp.MustCompile("(?ms)^```.*?^```")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	htmlLink   = regexp.MustCompile(`(?:src|href)="([^"]+)"`)
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// relativeLinks lists the link targets of a Markdown page outside code,
// leaving out those with a scheme (https:, mailto:).
func relativeLinks(page string) []string {
	page = fence.ReplaceAllString(page, "")
	var links []string
	for _, re := range []*regexp.Regexp{mdLink, htmlLink} {
		text := page
		if re == mdLink {
			text = inlineCode.ReplaceAllString(page, "")
		}
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if !scheme.MatchString(m[1]) {
				links = append(links, m[1])
			}
		}
	}
	return links
}

// headingAnchors are the anchors GitHub gives a page's headings: lower
// case, spaces to '-', punctuation other than '-' and '_' dropped, and a
// repeated anchor numbered -1, -2, ….
func headingAnchors(page string) map[string]bool {
	page = fence.ReplaceAllString(page, "")
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimLeft(line, "#"), "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// docSection is the text under "## heading" of a page, up to the next "## ".
func docSection(t *testing.T, path, heading string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("%s has no ## %s section", path, heading)
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}
