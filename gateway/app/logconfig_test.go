package app

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestConfigLogMasksSecrets(t *testing.T) {
	cfg, err := ParseFlags([]string{"-auth-secret", "hs256-topsecret", "-lottery-secret", "draw-topsecret",
		"-database-url", "postgres://termin:pgsecret@db:5432/termin?sslmode=disable",
		"-nats-url", "nats://u:natssecret@n1:4222,nats://n2:4222"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("gateway configuration", "config", cfg)
	out := buf.String()
	for _, secret := range []string{"hs256-topsecret", "draw-topsecret", "pgsecret", "natssecret"} {
		if strings.Contains(out, secret) {
			t.Errorf("logged configuration shows %q: %s", secret, out)
		}
	}
	for _, shown := range []string{`"auth_secret":"***"`, "termin:xxxxx@db:5432", "nats://n2:4222", `"reply_budget":"2s"`} {
		if !strings.Contains(out, shown) {
			t.Errorf("logged configuration lacks %s: %s", shown, out)
		}
	}
}
