package app

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestConfigLogMasksSecrets(t *testing.T) {
	t.Setenv("SMTP_PASSWORD", "smtpsecret")
	t.Setenv("SMS_TOKEN", "smssecret")
	cfg, err := ParseFlags([]string{"-database-url", "postgres://termin:pgsecret@db:5432/termin",
		"-sms-webhook-url", "https://api.example/send?token=hooksecret", "-stream-replicas", "3"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("booker configuration", "config", cfg)
	out := buf.String()
	for _, secret := range []string{"smtpsecret", "smssecret", "pgsecret", "hooksecret"} {
		if strings.Contains(out, secret) {
			t.Errorf("logged configuration shows %q: %s", secret, out)
		}
	}
	for _, shown := range []string{`"smtp_password":"***"`, `"replicas":3`, `"ack_wait":"30s"`} {
		if !strings.Contains(out, shown) {
			t.Errorf("logged configuration lacks %s: %s", shown, out)
		}
	}
}
