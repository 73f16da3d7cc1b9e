package app

import (
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// NewLogger is the gateway's structured JSON logger; LOG_LEVEL (debug, info,
// warn, error; default info) sets its level. At debug every booking's answer
// is logged with its request id and key, which costs at 5,000 clicks/s.
func NewLogger(w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(env("LOG_LEVEL", "info"))); err != nil {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// LogValue is the effective configuration as logged at start: every setting,
// with the secrets masked, so that an operator can see what a replica runs with
// without the log becoming a place secrets leak to.
func (c Config) LogValue() slog.Value {
	zone := ""
	if c.Zone != nil {
		zone = c.Zone.String()
	}
	return slog.GroupValue(
		slog.String("addr", c.Addr), slog.String("database_url", RedactURLs(c.DatabaseURL)),
		slog.String("nats_url", RedactURLs(c.NATSURL)), slog.String("clinic_tz", zone),
		slog.String("auth_secret", mask(string(c.AuthSecret))),
		dur("reply_budget", c.ReplyBudget), dur("publish_timeout", c.PublishTimeout),
		slog.Int("read_conns", int(c.ReadConns)), slog.String("subject_prefix", c.SubjectPrefix),
		slog.Int("rate_limit", c.RateLimit), dur("rate_window", c.RateWindow),
		slog.Int("admission_margin", c.Room.Margin), slog.Int("max_waiting", c.Room.MaxTickets),
		dur("full_mark_ttl", c.Room.FullFor), dur("prequeue_window", c.Room.PreWindow),
		slog.Uint64("lottery_seed", c.Room.Seed), dur("list_cache_ttl", c.ListTTL),
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
