// Package envconf is how both binaries read their settings and log them: flag
// defaults from the environment, a JSON logger whose level LOG_LEVEL sets,
// and the masking that keeps secrets out of the logged configuration.
package envconf

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// String is the variable's value, or def when it is unset or empty.
func String(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// Int is the variable as an integer, or def when it is unset or not a number.
func Int(name string, def int) int {
	n, err := strconv.Atoi(String(name, strconv.Itoa(def)))
	if err != nil {
		return def
	}
	return n
}

// Duration is the variable as a duration ("2s"), or def when unset or invalid.
func Duration(name string, def time.Duration) time.Duration {
	d, err := time.ParseDuration(String(name, def.String()))
	if err != nil {
		return def
	}
	return d
}

// NewLogger is a structured JSON logger, one object per line for machines to
// collect; LOG_FORMAT=text makes it key=value lines for people instead, and
// LOG_LEVEL (debug, info, warn, error; default info) sets its level.
func NewLogger(w io.Writer) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(String("LOG_LEVEL", "info"))); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(String("LOG_FORMAT", "json"), "text") {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// Mask shows whether a secret is set, never the secret.
func Mask(secret string) string {
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

// Dur logs a duration as people write it ("2s"), not in nanoseconds.
func Dur(key string, d time.Duration) slog.Attr { return slog.String(key, d.String()) }

// RedactDefaults masks the passwords in the shown defaults of URL flags:
// their defaults come from the environment, and -h prints defaults. The
// values themselves stay as they are.
func RedactDefaults(fs *flag.FlagSet, names ...string) {
	for _, name := range names {
		if f := fs.Lookup(name); f != nil {
			f.DefValue = RedactURLs(f.DefValue)
		}
	}
}

// Runtime are the variables every binary reads besides its flags: the
// logger's (NewLogger) and the Go runtime's (TuneGC leaves GOGC and
// GOMEMLIMIT to the operator once set).
var Runtime = []string{"LOG_LEVEL", "LOG_FORMAT", "GOGC", "GOMEMLIMIT", "GOMAXPROCS"}

// Variable is the environment variable a flag reads: the first word of the
// parentheses its usage ends with, as in "(NATS_URL)", "(MIGRATE=0 turns it
// off)" or "(PUBLIC_URL; default …)". It is "" when the usage names none.
func Variable(f *flag.Flag) string {
	i := strings.LastIndex(f.Usage, "(")
	if i < 0 || !strings.HasSuffix(f.Usage, ")") {
		return ""
	}
	name := f.Usage[i+1:]
	if n := strings.IndexFunc(name, func(r rune) bool { return r != '_' && (r < 'A' || r > 'Z') && (r < '0' || r > '9') }); n >= 0 {
		name = name[:n]
	}
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return ""
	}
	return name
}

// Variables lists the environment variables a binary reads: the one each
// flag of fs names (Variable), then besides. It fails for a flag that names
// none, so that no setting is left out of `-h` and the documentation.
func Variables(fs *flag.FlagSet, besides ...string) ([]string, error) {
	var names []string
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if v := Variable(f); v != "" {
			names = append(names, v)
		} else if err == nil {
			err = fmt.Errorf("envconf: flag -%s names no environment variable at the end of its usage", f.Name)
		}
	})
	return append(names, besides...), err
}

// SetUsage makes fs's -h list its flags and then the variables read besides them.
func SetUsage(fs *flag.FlagSet, besides ...string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage of %s (each flag's default comes from the variable it names):\n", fs.Name())
		fs.PrintDefaults()
		fmt.Fprintf(w, "\nAlso read from the environment: %s\n", strings.Join(besides, ", "))
	}
}
