package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadRunEnv reads what make run writes: shell-quoted values, a comment.
func TestReadRunEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.env")
	body := "# Written by `make run`\nGW='http://127.0.0.1:8080'\nDB='postgres://u:it'\\''s@h:5432/termin?sslmode=disable'\nEMPTY=''\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	got := readRunEnv(path)
	want := map[string]string{"GW": "http://127.0.0.1:8080", "DB": "postgres://u:it's@h:5432/termin?sslmode=disable", "EMPTY": ""}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if m := readRunEnv(filepath.Join(t.TempDir(), "missing")); len(m) != 0 {
		t.Errorf("missing file read as %v, want empty", m)
	}
}
