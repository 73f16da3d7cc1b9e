package system_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestBrowserCandidatesIncludeMacApps: on macOS the browser tests find
// Google Chrome.app (Homebrew's google-chrome cask) and Chromium.app, in
// /Applications and in the user's ~/Applications, after the Linux names.
func TestBrowserCandidatesIncludeMacApps(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	chrome := filepath.Join(home, "Applications/Google Chrome.app/Contents/MacOS/Google Chrome")
	if err := os.MkdirAll(filepath.Dir(chrome), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chrome, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := browserCandidates(home)
	for _, want := range []string{"/usr/bin/chromium", "chromium",
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Chromium.app/Contents/MacOS/Chromium",
		chrome, filepath.Join(home, "Applications/Chromium.app/Contents/MacOS/Chromium")} {
		if !slices.Contains(got, want) {
			t.Errorf("candidates %q lack %q", got, want)
		}
	}
	if slices.Index(got, "/usr/bin/chromium") != 0 {
		t.Errorf("candidates %q: Debian's /usr/bin/chromium must come first", got)
	}
	if p, err := exec.LookPath(chrome); err != nil || p != chrome {
		t.Errorf("LookPath(%q) = %q, %v: a path with spaces must be found as it is", chrome, p, err)
	}
}

// TestKegOnlyPsqlIsFound: with psql off PATH, the README's lines run with
// the newest keg-only Homebrew client's directory added: libpq first, then
// postgresql@N by version, then Debian's versioned directories.
func TestKegOnlyPsqlIsFound(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	psql := func(dir string) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "psql"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	arm, intel, debian := filepath.Join(root, "opt/homebrew/opt"), filepath.Join(root, "usr/local/opt"), filepath.Join(root, "usr/lib/postgresql")
	brews := []string{arm, intel}
	if got := psqlDirIn(brews, debian); got != "" {
		t.Errorf("no psql anywhere: found %q", got)
	}
	deb := psql(filepath.Join(debian, "15/bin"))
	if got := psqlDirIn(brews, debian); got != deb {
		t.Errorf("Debian's only: found %q, want %q", got, deb)
	}
	psql(filepath.Join(intel, "postgresql@16/bin"))
	newest := psql(filepath.Join(intel, "postgresql@17/bin"))
	if got := psqlDirIn(brews, debian); got != newest {
		t.Errorf("postgresql@16 and @17 under /usr/local: found %q, want %q", got, newest)
	}
	libpq := psql(filepath.Join(arm, "libpq/bin"))
	if got := psqlDirIn(brews, debian); got != libpq {
		t.Errorf("with libpq under /opt/homebrew: found %q, want %q", got, libpq)
	}
}
