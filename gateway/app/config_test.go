package app_test

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"termin/gateway/app"
	gwhttp "termin/gateway/http"
	"termin/gateway/oidc"
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

// TestSecretNotInHelp: -h prints every flag's default, and the secret's
// default must not be the environment's value.
func TestSecretNotInHelp(t *testing.T) {
	const secret = "env-secret-that-must-not-be-printed-0123456789"
	t.Setenv("AUTH_SECRET", secret)
	t.Setenv("DATABASE_URL", "postgres://termin:pg-password-in-env@db:5432/termin")
	t.Setenv("NATS_URL", "nats://gateway:nats-password-in-env@n1:4222")
	var out strings.Builder
	stderr := os.Stderr
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	os.Stderr = w
	_, err = app.ParseFlags([]string{"-h"})
	os.Stderr = stderr
	w.Close()
	_, _ = io.Copy(&out, r)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if strings.Contains(out.String(), secret) || strings.Contains(out.String(), "password-in-env") || !strings.Contains(out.String(), "AUTH_SECRET") {
		t.Errorf("-h output shows the secret or does not name AUTH_SECRET:\n%s", out.String())
	}
	cfg, err := app.ParseFlags(nil)
	if err != nil || string(cfg.Auth.Secret) != secret || !strings.Contains(cfg.NATSURL, "nats-password-in-env") {
		t.Errorf("AUTH_SECRET not read from the environment: %q, %v", cfg.Auth.Secret, err)
	}
}

// TestStartRefusesWithoutSecret: a gateway without a usable secret or a
// well-configured provider does not start (before it connects to
// anything), unless AUTH_DISABLED says so.
func TestStartRefusesWithoutSecret(t *testing.T) {
	for _, s := range []string{"", "short"} {
		cfg := app.Config{Auth: gwhttp.AuthConfig{Secret: []byte(s)}, Logger: slog.New(slog.DiscardHandler)}
		if _, err := app.Start(context.Background(), cfg); !errors.Is(err, gwhttp.ErrNoSecret) {
			t.Errorf("secret %q: Start error %v, want ErrNoSecret", s, err)
		}
	}
	for _, c := range []struct {
		name string
		oidc oidc.Config
	}{
		{"an issuer without an audience", oidc.Config{Issuer: "https://id.example.org/realms/termin"}},
		{"an issuer that is no URL", oidc.Config{Issuer: "id.example.org", Audience: "api"}},
	} {
		cfg := app.Config{OIDC: c.oidc, Logger: slog.New(slog.DiscardHandler)}
		if _, err := app.Start(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "OIDC_") {
			t.Errorf("%s: Start error %v, want one naming the OIDC setting", c.name, err)
		}
	}
	t.Setenv("AUTH_DISABLED", "1")
	cfg, err := app.ParseFlags(nil)
	if err != nil || !cfg.Auth.Disabled {
		t.Errorf("AUTH_DISABLED=1 not read: %+v, %v", cfg.Auth, err)
	}
}

// TestLotterySecretIsCommonToGateways: LOTTERY_SECRET wins; without it two
// gateways with one AUTH_SECRET derive the same lottery secret, which is not
// the token key itself; with neither, each gateway has its own.
func TestLotterySecretIsCommonToGateways(t *testing.T) {
	t.Setenv("AUTH_SECRET", "")
	t.Setenv("LOTTERY_SECRET", "")
	auth := "a token key of at least thirty-two bytes"
	cases := []struct {
		name string
		args []string
		same bool
	}{
		{"set", []string{"-lottery-secret", "common", "-auth-secret", auth}, true},
		{"derived", []string{"-auth-secret", auth}, true},
		{"neither", nil, false},
	}
	for _, c := range cases {
		a, errA := app.ParseFlags(c.args)
		b, errB := app.ParseFlags(c.args)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if (a.Room.Secret == b.Room.Secret) != c.same || a.Room.Secret == auth || a.Room.Secret == "" {
			t.Errorf("%s: two gateways draw from %q and %q", c.name, a.Room.Secret, b.Room.Secret)
		}
	}
}
