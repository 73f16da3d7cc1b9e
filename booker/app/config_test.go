package app_test

import (
	"strings"
	"testing"
	"time"

	"termin/booker/app"
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
		case tt.err == "" && (err != nil || string(cfg.Stream.Namespace) != tt.want):
			t.Errorf("%q: namespace %q (error %v), want %q", tt.value, cfg.Stream.Namespace, err, tt.want)
		}
	}
}

func TestCancelCutoffFlag(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
		err  string
	}{
		{nil, 0, ""},
		{[]string{"-cancel-cutoff", "24h"}, 24 * time.Hour, ""},
		{[]string{"-cancel-cutoff", "-1h"}, 0, "CANCEL_CUTOFF"},
	}
	for _, tt := range tests {
		cfg, err := app.ParseFlags(tt.args)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%v: error %v, want one naming %s", tt.args, err, tt.err)
		case tt.err == "" && (err != nil || cfg.CancelCutoff != tt.want):
			t.Errorf("%v: cutoff %v (error %v), want %v", tt.args, cfg.CancelCutoff, err, tt.want)
		}
	}
}
