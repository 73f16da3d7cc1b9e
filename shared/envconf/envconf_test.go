package envconf_test

import (
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
