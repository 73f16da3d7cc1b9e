package app

import (
	"log/slog"
	"termin/shared/envconf"
)

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
		slog.String("database_url", envconf.RedactURLs(c.DatabaseURL)), slog.String("nats_url", envconf.RedactURLs(c.NATSURL)),
		slog.String("addr", c.Addr), slog.String("clinic_tz", zone),
		slog.Int("workers", c.Workers), slog.Int("batch_size", c.BatchSize), envconf.Dur("batch_wait", c.BatchWait),
		slog.Int("db_conns", int(c.DBConns)), slog.Bool("migrate", c.Migrate),
		slog.Int("max_upcoming_per_doctor", c.Caps.PerDoctor), slog.Int("max_upcoming", c.Caps.Total),
		slog.Group("stream", "namespace", string(s.Namespace), "subject_prefix", s.SubjectPrefix, "replicas", s.Replicas, "max_bytes", s.MaxBytes,
			"max_msgs", s.MaxMsgs, "duplicates", s.Duplicates.String(), "ack_wait", s.AckWait.String(),
			"max_ack_pending", s.MaxAckPending, "decision_ttl", s.DecisionTTL.String()),
		slog.Bool("outbox_relay", !c.DisableRelay), slog.Bool("notifier", !c.DisableNotifier),
		slog.Group("notify", "smtp_addr", n.SMTPAddr, "mail_file", n.MailFile, "smtp_from", n.SMTPFrom, "smtp_user", n.SMTPUser,
			"smtp_password", envconf.Mask(n.SMTPPassword), "sms_webhook_url", envconf.RedactURLs(n.SMSWebhookURL),
			"sms_token", envconf.Mask(n.SMSToken), "max_deliver", n.MaxDeliver),
		slog.String("log_level", envconf.String("LOG_LEVEL", "info")))
}
