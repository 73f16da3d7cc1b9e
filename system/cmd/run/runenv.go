package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"termin/shared/envconf"
	"termin/system"
	"termin/system/devidp"
)

// envVar is one line of run.env: a shell variable other shells source to
// reach this run (the README's curl lines, psql, `make loadtest`).
type envVar struct{ name, value string }

// runEnv is what run.env holds: GW, the gateway's base URL; DB, the
// database's URL; BOOKER, the booker's admin URL; TOKEN, STAFF_TOKEN and
// ADMIN_TOKEN, the development tokens of the demo patient, of the demo
// practice's staff and of an admin (absent when authentication is disabled).
func runEnv(sys *system.System, dev *system.DevAuth) []envVar {
	env := []envVar{
		{"GW", sys.GatewayURL()},
		{"DB", sys.DatabaseURL},
		{"BOOKER", "http://" + sys.BookerAddr()},
	}
	if sys.NATSMonitor != "" {
		env = append(env, envVar{"NATS_MONITOR", sys.NATSMonitor})
	}
	pids := sys.PIDs()
	for _, name := range []string{"gateway", "booker", "nats-server"} {
		if pid, ok := pids[name]; ok {
			env = append(env, envVar{strings.ToUpper(strings.ReplaceAll(name, "-server", "")) + "_PID", strconv.Itoa(pid)})
		}
	}
	if dev != nil {
		env = append(env, envVar{"TOKEN", dev.PatientToken}, envVar{"STAFF_TOKEN", dev.StaffToken},
			envVar{"ADMIN_TOKEN", dev.AdminToken})
	}
	return env
}

// claim writes run.pid into dir: this process is the directory's run,
// which `make stop` may stop.
func claim(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "run.pid"), strconv.Itoa(os.Getpid())+"\n", 0o644)
}

// publish writes run.env into dir, for other shells.
func publish(dir string, env []envVar) error {
	var b strings.Builder
	b.WriteString("# Written by `make run` while it runs; in another shell: . ./.data/run.env\n")
	for _, v := range env {
		fmt.Fprintf(&b, "%s=%s\n", v.name, shellQuote(v.value))
	}
	// 0600: the file may hold tokens and a database password.
	return writeAtomic(filepath.Join(dir, "run.env"), b.String(), 0o600)
}

// writeAtomic writes through a temporary file and a rename, so that a
// reader never sees half a file.
func writeAtomic(path, content string, mode os.FileMode) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// unpublish removes what publish wrote, so that nobody reaches for a run
// that has ended.
func unpublish(dir string) {
	os.Remove(filepath.Join(dir, "run.env"))
	os.Remove(filepath.Join(dir, "run.pid"))
}

// shellQuote makes s one word for sh, bash and zsh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// banner is what a person reads first, in words a newcomer knows: what
// runs where, which database the run uses, where the e-mails go, who may
// sign in on the pages, and how to stop it. It prints no token, nor an
// address that carries one: the tokens are in run.env and .data/*.token.
func banner(sys *system.System, dev *system.DevAuth, idp *devidp.Provider, env []envVar) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ntermin is running: %s.\n", services(sys.PIDs()))
	fmt.Fprintf(&b, "  web server:      %s   the API (docs/api.md) and the pages; try it: README.md, quick start\n", sys.GatewayURL())
	fmt.Fprintf(&b, "  database:        %s   (`make reset` empties it)\n", sys.Database)
	fmt.Fprintf(&b, "                   %s\n", envconf.RedactURLs(sys.DatabaseURL))
	fmt.Fprintf(&b, "  message queue:   %s, %s\n", sys.Queue, sys.NATSURL)
	fmt.Fprintf(&b, "  booking service: health and metrics on http://%s\n", sys.BookerAddr())
	fmt.Fprintf(&b, "  e-mails:         %s\n", mailText())
	fmt.Fprintf(&b, "  patient page:    %s/\n", sys.GatewayURL())
	fmt.Fprintf(&b, "  practice page:   %s/praxis   (doctors and staff)\n", sys.GatewayURL())
	if idp != nil {
		fmt.Fprintf(&b, "  sign-in:         \"Anmelden\" on a page, at the development sign-in service %s, as\n", idp.Issuer())
		for _, p := range devidp.DemoPeople {
			fmt.Fprintf(&b, "                     %s\n", p.Label)
		}
	}
	if dev != nil {
		fmt.Fprintf(&b, "  tokens:          patient %d ($TOKEN), staff of practice %d ($STAFF_TOKEN), admin ($ADMIN_TOKEN): in %s/run.env and %s/*.token\n",
			system.DevPatient, system.DevPractice, dataDir, dataDir)
	} else {
		fmt.Fprintf(&b, "  AUTH_DISABLED=1: every caller acts as an admin, no token needed\n")
	}
	fmt.Fprintf(&b, "  other shells: . ./.data/run.env   (sets %s)\n", names(env))
	fmt.Fprintf(&b, "Ctrl-C stops it and everything it started (or `make stop` from another shell).\n\n")
	return b.String()
}

// services says where the web server (gateway), the booking service
// (booker) and the message queue (NATS) run: in this process, or as the
// processes pids names.
func services(pids map[string]int) string {
	if len(pids) == 0 {
		return "the web server (gateway), the booking service (booker) and the message queue between them (NATS), in this one process"
	}
	var parts []string
	for _, name := range []string{"gateway", "booker", "nats-server"} {
		if pid, ok := pids[name]; ok {
			parts = append(parts, fmt.Sprintf("bin/%s (pid %d)", name, pid))
		}
	}
	return "the web server, the booking service and the message queue as processes of their own: " + strings.Join(parts, ", ")
}

// mailText says where the e-mails go: to the mail server, or into the
// local mailbox.
func mailText() string {
	if addr := os.Getenv("SMTP_ADDR"); addr != "" {
		return "sent through the mail server at " + addr
	}
	return "not sent; each is written to " + localMailbox() + " (any mail program opens it, e.g. mutt -f " + localMailbox() + ")"
}

func names(env []envVar) string {
	out := make([]string, len(env))
	for i, v := range env {
		out[i] = v.name
	}
	return strings.Join(out, ", ")
}
