package system_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"termin/migrations/pgtest"
	"termin/shared/poll"
)

// The personal data TestLogsHoldNoPersonalData gives the system: rare
// enough that finding one in a log is no accident.
const (
	piiName  = "Zelda Quernheim-Oyelaran"
	piiEmail = "zelda.quernheim@example.org"
	piiPhone = "+4917098765432"
)

// TestLogsHoldNoPersonalData runs `make run` at debug level, its SMS
// provider one that refuses every message quoting the number and the text,
// and goes through the routes that carry personal data: a profile with
// consent to e-mail and SMS, the README's quick start (a booking and its
// cancellation, each confirmed by e-mail into the local mailbox and tried by
// SMS), a profile the gateway refuses, the export, the practice's day and an
// admin's list. The messages are made (the mailbox holds them, the provider
// saw them), and no log line holds the name, the address, the number, a line
// of a message or a token.
func TestLogsHoldNoPersonalData(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sms := &refusingSMS{}
	provider := httptest.NewServer(sms)
	t.Cleanup(provider.Close)
	dir := t.TempDir()
	run := startRun(t, dir, map[string]string{"DATABASE_URL": pgtest.URL(t), "LOG_LEVEL": "debug",
		"SMS_WEBHOOK_URL": provider.URL})
	c := &runClient{t: t, gw: run.env["GW"]}
	profile := fmt.Sprintf(`{"name":%q,"email":%q,"phone":%q,"language":"de","consent":{"email":true,"sms":true}}`,
		piiName, piiEmail, piiPhone)
	c.expect("PUT", "/api/patients/me", run.env["TOKEN"], profile, 200)
	bash(t, run.dir, markedBlock(t, readme, "quickstart").script)
	c.expect("PUT", "/api/patients/me", run.env["TOKEN"], `{"name":"`+piiName+`","email":"`+piiName+`"}`, 400)
	c.expect("GET", "/api/patients/me/export", run.env["TOKEN"], "", 200)
	c.expect("GET", "/api/doctors/1/appointments?date="+c.tomorrow(), run.env["STAFF_TOKEN"], "", 200)
	c.expect("GET", "/api/appointments?patientId=77", run.env["ADMIN_TOKEN"], "", 200)

	mailbox := filepath.Join(dir, ".data", "mail.mbox")
	poll.For(t, 30*time.Second, 100*time.Millisecond, func() error {
		if n := sms.count(); n < 2 {
			return fmt.Errorf("the SMS provider saw %d messages, want the booking's and the cancellation's", n)
		}
		return contains(mailbox, "To: "+piiEmail)
	})
	run.interrupt(t)
	logs := run.output(&run.stderr)
	for what, value := range personalData(t, mailbox, sms.texts(), run.env) {
		if strings.Contains(logs, value) {
			t.Errorf("the log holds %s %q", what, value)
		}
	}
}

// personalData is what the run was given or made about the patient, by
// what it is: the profile's fields, each line of the messages, the tokens.
func personalData(t *testing.T, mailbox string, smsTexts []string, env map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{"the name": piiName, "the surname": "Quernheim", "the e-mail address": piiEmail,
		"the phone number": piiPhone, "the phone number's digits": strings.TrimPrefix(piiPhone, "+")}
	raw, err := os.ReadFile(mailbox)
	if err != nil {
		t.Fatal(err)
	}
	lines := append(strings.Split(string(raw), "\n"), smsTexts...)
	for _, line := range lines {
		line = strings.TrimSpace(line)
		header, _, _ := strings.Cut(line, ":")
		if len(line) >= 24 && !strings.Contains(header, "-ID") && !strings.HasPrefix(line, "Date:") &&
			!strings.HasPrefix(line, "Content-") && !strings.HasPrefix(line, "--termin-part") {
			out["a message's line"+fmt.Sprintf(" %.20q…", line)] = line
		}
	}
	for _, name := range []string{"TOKEN", "STAFF_TOKEN", "ADMIN_TOKEN"} {
		out["the token "+name] = env[name]
		if i := strings.LastIndexByte(env[name], '.'); i > 0 {
			out["the signature of "+name] = env[name][i+1:]
		}
	}
	if len(out) < 12 {
		t.Fatalf("only %d pieces of personal data to look for: the messages were not made", len(out))
	}
	return out
}

// refusingSMS is an SMS provider that refuses every message with an answer
// quoting its number and text, as some providers' error pages do.
type refusingSMS struct {
	mu  sync.Mutex
	got []string
}

func (s *refusingSMS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct{ To, Text string }
	_ = json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&m)
	s.mu.Lock()
	s.got = append(s.got, m.Text)
	s.mu.Unlock()
	http.Error(w, fmt.Sprintf("cannot deliver %q to %s", m.Text, m.To), http.StatusBadGateway)
}

func (s *refusingSMS) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

func (s *refusingSMS) texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// runClient calls a run's gateway as a person's client would.
type runClient struct {
	t  *testing.T
	gw string
}

// expect sends a request with token and fails unless it is answered status.
func (c *runClient) expect(method, path, token, body string, status int) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.gw+path, bytes.NewReader([]byte(body)))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("%s %s answered %d, want %d: %s", method, path, resp.StatusCode, status, b)
	}
}

// tomorrow is the day after the gateway's today in the clinic's zone, by the
// gateway's clock (its answers' Date).
func (c *runClient) tomorrow() string {
	c.t.Helper()
	resp, err := http.Get(c.gw + "/healthz")
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	now, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		c.t.Fatalf("the gateway's Date %q: %v", resp.Header.Get("Date"), err)
	}
	return now.In(berlin).AddDate(0, 0, 1).Format(time.DateOnly)
}
