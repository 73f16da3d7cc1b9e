package app

import (
	"log/slog"
	"termin/shared/envconf"
)

// LogValue is the effective configuration as logged at start: every setting,
// with the secrets masked, so that an operator can see what a replica runs with
// without the log becoming a place secrets leak to.
func (c Config) LogValue() slog.Value {
	zone := ""
	if c.Zone != nil {
		zone = c.Zone.String()
	}
	return slog.GroupValue(
		slog.String("addr", c.Addr), slog.String("database_url", envconf.RedactURLs(c.DatabaseURL)),
		slog.String("nats_url", envconf.RedactURLs(c.NATSURL)), slog.String("nats_namespace", string(c.Namespace)),
		slog.String("clinic_tz", zone),
		slog.String("auth_secret", envconf.Mask(string(c.Auth.Secret))), slog.Bool("auth_disabled", c.Auth.Disabled),
		slog.String("auth_issuer", c.Auth.Issuer), slog.String("auth_audience", c.Auth.Audience),
		envconf.Dur("auth_max_lifetime", c.Auth.MaxLifetime),
		slog.String("oidc_issuer", c.OIDC.Issuer), slog.String("oidc_audience", c.OIDC.Audience),
		slog.String("oidc_discovery_url", c.OIDC.DiscoveryURL),
		slog.String("oidc_roles_claim", c.OIDC.RolesClaim), slog.String("oidc_client_id", c.OIDCClientID),
		envconf.Dur("oidc_jwks_refresh", c.OIDC.Refresh),
		envconf.Dur("reply_budget", c.ReplyBudget), envconf.Dur("publish_timeout", c.PublishTimeout),
		envconf.Dur("pack_wait", c.PackWait),
		slog.Int("read_conns", int(c.ReadConns)), slog.String("subject_prefix", c.SubjectPrefix),
		slog.Int("rate_limit", c.RateLimit), envconf.Dur("rate_window", c.RateWindow),
		slog.Int("admission_margin", c.Room.Margin), slog.Int("max_waiting", c.Room.MaxTickets),
		envconf.Dur("full_mark_ttl", c.Room.FullFor), envconf.Dur("prequeue_window", c.Room.PreWindow),
		slog.String("lottery_secret", envconf.Mask(c.Room.Secret)), envconf.Dur("list_cache_ttl", c.ListTTL),
		slog.String("log_level", envconf.String("LOG_LEVEL", "info")))
}
