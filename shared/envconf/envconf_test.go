package envconf_test

import (
	"encoding/json"
	"strings"
	"testing"

	"termin/shared/envconf"
)

func TestRedactURLs(t *testing.T) {
	tests := []struct{ in, secret string }{
		{"host=db user=termin password=s3cret dbname=termin", "s3cret"},
		{"postgres://termin:pgsecret@db:5432/termin", "pgsecret"},
		{"nats://u:natssecret@n1:4222,nats://n2:4222", "natssecret"},
		{"https://api.example/send?token=hooksecret", "hooksecret"},
	}
	for _, tc := range tests {
		if got := envconf.RedactURLs(tc.in); strings.Contains(got, tc.secret) {
			t.Errorf("RedactURLs(%q) = %q", tc.in, got)
		}
	}
}

func TestNumbersFallBackToDefaults(t *testing.T) {
	t.Setenv("TERMIN_TEST_INT", "many")
	t.Setenv("TERMIN_TEST_DUR", "2s")
	if got := envconf.Int("TERMIN_TEST_INT", 5); got != 5 {
		t.Errorf("Int = %d, want the default 5 for a non-number", got)
	}
	if got := envconf.Duration("TERMIN_TEST_DUR", 0); got.String() != "2s" {
		t.Errorf("Duration = %v, want 2s", got)
	}
}

// TestLoggerFormat: JSON lines unless LOG_FORMAT=text asks for text, as
// docs/operations.md documents.
func TestLoggerFormat(t *testing.T) {
	tests := []struct {
		format string
		json   bool
	}{{"", true}, {"json", true}, {"text", false}, {"TEXT", false}, {"yaml", true}}
	for _, tc := range tests {
		t.Setenv("LOG_FORMAT", tc.format)
		var b strings.Builder
		envconf.NewLogger(&b).Info("hello", "k", 1)
		line := b.String()
		if got := json.Valid([]byte(line)); got != tc.json {
			t.Errorf("LOG_FORMAT=%q: line %q is JSON = %v, want %v", tc.format, line, got, tc.json)
		}
		if !tc.json && !strings.Contains(line, "msg=hello k=1") {
			t.Errorf("LOG_FORMAT=%q: line %q is not key=value text", tc.format, line)
		}
	}
}
