// Package app wires the booker together: PostgreSQL, NATS JetStream, the
// worker pool and the admin HTTP server. Tests start it on port 0; the booker
// command starts it from flags and the environment.
package app

import (
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"termin/booker"
	"termin/booker/jetstream"
	"termin/shared"
	"termin/shared/envconf"
	"termin/shared/tracing"
)

// Config is everything the booker can be told. Each field has a safe default.
type Config struct {
	DatabaseURL string
	NATSURL     string
	// NATSOptions are added to the connection's options: a bundle that
	// embeds its nats-server connects in-process (nats.InProcessServer),
	// sparing each message two system calls and a loopback hop.
	NATSOptions []nats.Option
	// Addr serves /metrics, /healthz and /readyz; port 0 picks a free one.
	Addr string
	// Zone is the clinic's time zone, in which calendar dates are read.
	Zone *time.Location
	// Clock is the booker's now: whether a slot has started or opened, when
	// a hold ends, which day's slots are due, which reminders are. Nil is
	// the wall clock; only tests set another (no flag or variable does).
	Clock shared.Clock
	// Workers is the number of batches this booker decides at once; each
	// holds one database connection while it decides.
	Workers int
	// BatchSize and BatchWait bound a batch: up to BatchSize commands; a
	// lane that holds fewer waits for more until its oldest command has
	// waited BatchWait, then takes what it has (so batches grow with the
	// load, which makes them cheaper, and a command that queued behind a
	// batch waits no longer for company). A lane behind the load
	// takes full batches one after the other, so BatchSize caps what one lane
	// decides per second: too small a size leaves a lane behind for good
	// after a busy opening.
	BatchSize int
	BatchWait time.Duration
	// DBConns bounds this booker's connections to PostgreSQL.
	DBConns int32
	// Migrate applies pending migrations at start, under a lock.
	Migrate bool
	Stream  jetstream.Config
	Logger  *slog.Logger
	// DisableRelay and DisableNotifier turn off the outbox relay and the
	// notifier, which every booker runs by default (the zero value).
	DisableRelay    bool
	DisableNotifier bool
	Notify          NotifyConfig
	// Remind sets the reminders before appointments, written by every booker
	// that runs the relay.
	Remind RemindConfig
	// OfferTTL is how long a waitlist offer is held; 0 means 15 min.
	OfferTTL time.Duration
	// Schedule sets the daily opening and the roll-forward job.
	Schedule ScheduleConfig
	// CancelCutoff, when positive, refuses cancelling or moving an
	// appointment that starts within it (CANCEL_CUTOFF_PASSED); 0 allows
	// both until the start (APPOINTMENT_PAST after it).
	CancelCutoff time.Duration
	// Caps bound a patient's upcoming appointments (per doctor, in total);
	// zero is off. The flags' defaults are booker.DefaultCaps.
	Caps booker.Caps
	// Retention is how long personal data is kept past its last use; 0
	// means DefaultRetention.
	Retention time.Duration
	// Holds sets the holds' life and the expiry job.
	Holds HoldConfig
	// Decorate, when set, wraps the decision core. Fault and load tests use it
	// to slow the booker down or to break it on purpose; production leaves it nil.
	Decorate func(booker.Service) booker.Service
}

// NotifyConfig sets the notifier's channels. An empty SMTPAddr writes each
// e-mail to MailFile instead of sending it, or drops it when that is empty
// too; an empty SMSWebhookURL sends no SMS.
type NotifyConfig struct {
	SMTPAddr string
	// MailFile is the local mailbox (mbox) that takes the e-mails when no
	// mail server is set: `make run`'s, under its data directory.
	MailFile      string
	SMTPFrom      string
	SMTPUser      string
	SMTPPassword  string
	SMSWebhookURL string
	SMSToken      string
	// MaxDeliver is the attempts of a failing channel before the event is
	// dead-lettered; 0 means 5.
	MaxDeliver int
	// RetryBase is the first retry's delay, doubling after; 0 means 30 s. Tests shorten it.
	RetryBase time.Duration
	// PracticeName and PracticeAddress are written in every message and
	// calendar event; an empty address is left out.
	PracticeName    string
	PracticeAddress string
	// PublicURL is the patient web page, linked from every message.
	PublicURL string
}

// ParseFlags reads the configuration from args, with defaults from the
// environment, so that `booker -h` lists every setting and its variable.
func ParseFlags(args []string) (Config, error) {
	cfg := Config{Stream: jetstream.DefaultConfig()}
	fs, finish := flags(&cfg)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if err := finish(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// besidesFlags are the variables the booker reads besides its flags: PPROF
// (profiles on the admin port) and the logger's and runtime's.
var besidesFlags = slices.Concat([]string{"PPROF"}, envconf.Runtime, tracing.Variables)

// Variables lists every environment variable the booker reads: the one
// each flag of `booker -h` names, then those -h lists after the flags.
func Variables() ([]string, error) {
	fs, _ := flags(&Config{Stream: jetstream.DefaultConfig()})
	return envconf.Variables(fs, besidesFlags...)
}

// flags declares the booker's settings on a flag set bound to cfg, with
// defaults from the environment; finish completes cfg once it is parsed.
func flags(cfg *Config) (fs *flag.FlagSet, finish func() error) {
	fs = flag.NewFlagSet("booker", flag.ContinueOnError)
	zone := fs.String("clinic-tz", envconf.String("CLINIC_TZ", "Europe/Berlin"), "time zone of dates and working hours (CLINIC_TZ)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", envconf.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"), "PostgreSQL URL (DATABASE_URL)")
	fs.StringVar(&cfg.NATSURL, "nats-url", envconf.String("NATS_URL", "nats://127.0.0.1:4222"), "NATS URL (NATS_URL)")
	fs.StringVar(&cfg.Addr, "addr", envconf.String("BOOKER_ADDR", "127.0.0.1:9091"), "address of /metrics, /healthz, /readyz (BOOKER_ADDR)")
	fs.IntVar(&cfg.Caps.PerDoctor, "max-upcoming-per-doctor", envconf.Int("MAX_UPCOMING_PER_DOCTOR", booker.DefaultCaps.PerDoctor), "upcoming appointments a patient may hold with one doctor; 0 = no cap (MAX_UPCOMING_PER_DOCTOR)")
	fs.IntVar(&cfg.Caps.Total, "max-upcoming", envconf.Int("MAX_UPCOMING", booker.DefaultCaps.Total), "upcoming appointments a patient may hold in total; 0 = no cap (MAX_UPCOMING)")
	fs.DurationVar(&cfg.Retention, "retention", envconf.Duration("RETENTION", DefaultRetention), "how long personal data (contacts, access log, patients' ids on past visits) is kept past its last use (RETENTION)")
	fs.IntVar(&cfg.Workers, "workers", envconf.Int("BOOKER_WORKERS", 1), "batches decided at once; on 2 cores one lane makes batches twice as large and costs a booking less CPU than two (BOOKER_WORKERS)")
	fs.IntVar(&cfg.BatchSize, "batch-size", envconf.Int("BOOKER_BATCH_SIZE", 200), "commands decided in one transaction at most (BOOKER_BATCH_SIZE)")
	fs.DurationVar(&cfg.BatchWait, "batch-wait", envconf.Duration("BOOKER_BATCH_WAIT", 10*time.Millisecond), "the longest a command waits in its lane for company, which it does only while commands are pending in the stream or keep arriving: longer means fewer, larger transactions (BOOKER_BATCH_WAIT)")
	dbConns := fs.Int("db-conns", envconf.Int("BOOKER_DB_CONNS", 20), "maximum PostgreSQL connections (BOOKER_DB_CONNS)")
	fs.BoolVar(&cfg.Migrate, "migrate", envconf.String("MIGRATE", "1") != "0", "apply pending migrations at start (MIGRATE=0 turns it off)")
	fs.StringVar(&cfg.Stream.SubjectPrefix, "subject-prefix", envconf.String("BOOKING_SUBJECT_PREFIX", cfg.Stream.SubjectPrefix), "prefix of the booking stream's subjects: <prefix>.<partition>.<doctorId> and <prefix>.<partition>.envelope (BOOKING_SUBJECT_PREFIX)")
	ns := fs.String("nats-namespace", envconf.String("NATS_NAMESPACE", ""), "sets this system's streams, buckets and subjects apart on a shared NATS server; the gateways' must match (NATS_NAMESPACE)")
	fs.IntVar(&cfg.Stream.MaxDeliver, "max-deliver", envconf.Int("BOOKER_MAX_DELIVER", cfg.Stream.MaxDeliver), "deliveries of a command before it is parked on the dead-letter stream (BOOKER_MAX_DELIVER)")
	fs.IntVar(&cfg.Stream.Replicas, "stream-replicas", envconf.Int("STREAM_REPLICAS", cfg.Stream.Replicas), "replicas of the stream and bucket in a NATS cluster (STREAM_REPLICAS)")
	finishNotify := notifyFlags(fs, cfg)
	fs.StringVar(&cfg.Schedule.OpeningTime, "opening-time", envconf.String("OPENING_TIME", defaultOpeningTime), "daily opening HH:MM in CLINIC_TZ, when the next day of each plan becomes bookable (OPENING_TIME)")
	fs.DurationVar(&cfg.Schedule.RollLead, "roll-lead", envconf.Duration("ROLL_LEAD", defaultRollLead), "how long before the opening its day's slots are written (ROLL_LEAD)")
	fs.DurationVar(&cfg.Schedule.RollEvery, "roll-every", envconf.Duration("ROLL_EVERY", defaultRollEvery), "how often the roll-forward job looks for a due opening (ROLL_EVERY)")
	fs.DurationVar(&cfg.CancelCutoff, "cancel-cutoff", envconf.Duration("CANCEL_CUTOFF", 0), "refuse cancelling or moving an appointment that starts within this time, e.g. 24h; 0 turns it off (CANCEL_CUTOFF)")
	fs.DurationVar(&cfg.Holds.TTL, "hold-ttl", envconf.Duration("HOLD_TTL", defaultHoldTTL), "how long a hold keeps its place unless confirmed (HOLD_TTL)")
	fs.DurationVar(&cfg.Holds.Sweep, "hold-sweep", envconf.Duration("HOLD_SWEEP", defaultHoldSweep), "how often expired holds are freed (HOLD_SWEEP)")
	envconf.RedactDefaults(fs, "database-url", "nats-url")
	envconf.SetUsage(fs, besidesFlags...)
	return fs, func() error {
		if cfg.CancelCutoff < 0 {
			return fmt.Errorf("CANCEL_CUTOFF: %v is negative", cfg.CancelCutoff)
		}
		finishNotify()
		if _, err := parseLeads(cfg.Remind.Leads); err != nil {
			return err
		}
		cfg.DBConns = int32(*dbConns)
		if cfg.Stream.Namespace = shared.Namespace(*ns); cfg.Stream.Namespace.Valid() != nil {
			return fmt.Errorf("NATS_NAMESPACE: %w", cfg.Stream.Namespace.Valid())
		}
		loc, err := time.LoadLocation(*zone)
		if err != nil {
			return fmt.Errorf("CLINIC_TZ: %w", err)
		}
		cfg.Zone = loc
		return nil
	}
}

// notifyFlags declares the relay's and the notifier's settings; the returned
// func completes cfg after parsing.
func notifyFlags(fs *flag.FlagSet, cfg *Config) func() {
	relay := fs.Bool("outbox-relay", envconf.String("OUTBOX_RELAY", "1") != "0", "publish outbox events to the EVENTS stream (OUTBOX_RELAY=0 turns it off)")
	notifier := fs.Bool("notifier", envconf.String("NOTIFIER", "1") != "0", "send confirmations by e-mail and SMS (NOTIFIER=0 turns it off)")
	n := &cfg.Notify
	fs.StringVar(&n.SMTPAddr, "smtp-addr", envconf.String("SMTP_ADDR", ""), "mail server host:port; empty writes each e-mail to -mail-file instead (SMTP_ADDR)")
	fs.StringVar(&n.MailFile, "mail-file", envconf.String("MAIL_FILE", ""), "without SMTP_ADDR: the local mailbox file (mbox) each e-mail is appended to; empty drops them (MAIL_FILE)")
	fs.StringVar(&n.SMTPFrom, "smtp-from", envconf.String("SMTP_FROM", "termine@praxis.example"), "sender address of the e-mails (SMTP_FROM)")
	fs.StringVar(&n.SMTPUser, "smtp-user", envconf.String("SMTP_USER", ""), "SMTP user; empty sends without authentication (SMTP_USER)")
	fs.StringVar(&n.SMTPPassword, "smtp-password", "", "SMTP password (SMTP_PASSWORD)")
	fs.StringVar(&n.SMSWebhookURL, "sms-webhook-url", envconf.String("SMS_WEBHOOK_URL", ""), "SMS provider webhook; empty sends no SMS (SMS_WEBHOOK_URL)")
	fs.StringVar(&n.SMSToken, "sms-token", "", "bearer token of the SMS webhook (SMS_TOKEN)")
	fs.StringVar(&n.PracticeName, "practice-name", envconf.String("PRACTICE_NAME", "Praxis"), "the practice's name in messages and calendar events (PRACTICE_NAME)")
	fs.StringVar(&n.PracticeAddress, "practice-address", envconf.String("PRACTICE_ADDRESS", ""), "the practice's address in messages and calendar events; empty leaves it out (PRACTICE_ADDRESS)")
	fs.StringVar(&n.PublicURL, "public-url", envconf.String("PUBLIC_URL", "http://"+envconf.String("GATEWAY_ADDR", "127.0.0.1:8080")), "the patient web page's address, linked from messages (PUBLIC_URL; default the gateway's)")
	fs.StringVar(&cfg.Remind.Leads, "reminders", envconf.String("REMINDERS", defaultReminders), "reminders before each appointment, e.g. 24h,2h; 0 turns them off (REMINDERS)")
	fs.DurationVar(&cfg.Remind.Every, "remind-every", envconf.Duration("REMIND_EVERY", time.Minute), "how often due reminders are looked for (REMIND_EVERY)")
	fs.DurationVar(&cfg.OfferTTL, "offer-ttl", envconf.Duration("OFFER_TTL", defaultOfferTTL), "how long a freed place offered to the waitlist is held (OFFER_TTL)")
	fs.IntVar(&n.MaxDeliver, "notify-max-deliver", envconf.Int("NOTIFY_MAX_DELIVER", 5), "attempts before a notification is dead-lettered (NOTIFY_MAX_DELIVER)")
	return func() {
		// Secrets come from the environment without appearing as defaults in -h.
		n.SMTPPassword, n.SMSToken = or(n.SMTPPassword, envconf.String("SMTP_PASSWORD", "")), or(n.SMSToken, envconf.String("SMS_TOKEN", ""))
		cfg.DisableRelay, cfg.DisableNotifier = !*relay, !*notifier
	}
}

func or(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
