package app

import (
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// NewLogger is the booker's structured JSON logger; LOG_LEVEL (debug, info,
// warn, error; default info) sets its level. At debug every decided command
// is logged with the gateway's request id and the patient's key.
func NewLogger(w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// LogValue is the effective configuration as logged at start: every setting,
// with the secrets (database and NATS passwords, SMTP password, SMS token and
// webhook credentials) masked.
func (c Config) LogValue() slog.Value {
	zone := ""
	if c.Zone != nil {
		zone = c.Zone.String()
	}
	s, n := c.Stream, c.Notify
	return slog.GroupValue(
		slog.String("database_url", RedactURLs(c.DatabaseURL)), slog.String("nats_url", RedactURLs(c.NATSURL)),
		slog.String("addr", c.Addr), slog.String("clinic_tz", zone),
		slog.Int("workers", c.Workers), slog.Int("batch_size", c.BatchSize), dur("batch_wait", c.BatchWait),
		slog.Int("db_conns", int(c.DBConns)), slog.Bool("migrate", c.Migrate),
		slog.Group("stream", "subject_prefix", s.SubjectPrefix, "replicas", s.Replicas, "max_bytes", s.MaxBytes,
			"max_msgs", s.MaxMsgs, "duplicates", s.Duplicates.String(), "ack_wait", s.AckWait.String(),
			"max_ack_pending", s.MaxAckPending, "decision_ttl", s.DecisionTTL.String()),
		slog.Bool("outbox_relay", !c.DisableRelay), slog.Bool("notifier", !c.DisableNotifier),
		slog.Group("notify", "smtp_addr", n.SMTPAddr, "smtp_from", n.SMTPFrom, "smtp_user", n.SMTPUser,
			"smtp_password", mask(n.SMTPPassword), "sms_webhook_url", RedactURLs(n.SMSWebhookURL),
			"sms_token", mask(n.SMSToken), "max_deliver", n.MaxDeliver),
		slog.String("log_level", env("LOG_LEVEL", "info")))
}

// mask shows whether a secret is set, never the secret.
func mask(secret string) string {
	if secret == "" {
		return "(unset)"
	}
	return "***"
}

// dsnPassword finds a password in a key=value DSN or a URL's query.
var dsnPassword = regexp.MustCompile(`(?i)((?:password|token)=)[^&\s]+`)

// RedactURLs masks the passwords of a URL, or of comma-separated URLs (a NATS
// cluster), whether in the user info, the query or a key=value DSN.
func RedactURLs(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			p = u.Redacted()
		}
		parts[i] = dsnPassword.ReplaceAllString(p, "${1}xxxxx")
	}
	return strings.Join(parts, ",")
}

// dur logs a duration as people write it ("2s"), not in nanoseconds.
func dur(key string, d time.Duration) slog.Attr { return slog.String(key, d.String()) }
