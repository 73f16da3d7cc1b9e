package app_test

import (
	"errors"
	"flag"
	"io"
	"os"
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

// TestHelpShowsNoPasswords: -h prints each flag's default, taken from the
// environment; the URLs' passwords must not be printed with them.
func TestHelpShowsNoPasswords(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://termin:pg-password-in-env@db:5432/termin")
	t.Setenv("NATS_URL", "nats://booker:nats-password-in-env@n1:4222")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	_, err = app.ParseFlags([]string{"-h"})
	os.Stderr = stderr
	w.Close()
	out, _ := io.ReadAll(r)
	if !errors.Is(err, flag.ErrHelp) || strings.Contains(string(out), "password-in-env") || !strings.Contains(string(out), "DATABASE_URL") {
		t.Errorf("-h (%v) shows a password or not the settings:\n%s", err, out)
	}
}
