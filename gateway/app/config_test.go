package app_test

import (
	"strings"
	"testing"

	"termin/gateway/app"
)

func TestNamespaceFlag(t *testing.T) {
	tests := []struct {
		value, want, err string
	}{
		{"", "", ""},
		{"praxis2", "praxis2", ""},
		{"praxis.2", "", "NATS_NAMESPACE"},
	}
	for _, tt := range tests {
		cfg, err := app.ParseFlags([]string{"-nats-namespace", tt.value})
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want one naming %s", tt.value, err, tt.err)
		case tt.err == "" && (err != nil || string(cfg.Namespace) != tt.want):
			t.Errorf("%q: namespace %q (error %v), want %q", tt.value, cfg.Namespace, err, tt.want)
		}
	}
}
