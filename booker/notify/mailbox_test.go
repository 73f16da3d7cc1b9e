package notify_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"termin/booker/notify"
)

// The local mailbox takes messages from several workers at once; each is
// one whole mbox entry a mail reader parses, with its text readable as
// written (UTF-8, a line beginning "From " quoted), and the log names the
// file and the event but never the address, the subject or the text.
func TestMailboxKeepsWholeMessagesOutOfTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mail.mbox")
	var logs bytes.Buffer
	var mu sync.Mutex
	box := &notify.Mailbox{Path: path, From: from,
		Log: slog.New(slog.NewJSONHandler(&lockedBuffer{mu: &mu, b: &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			m := notify.Message{Ref: fmt.Sprintf("ev-%d", i), Subject: "Terminbestätigung für Anna Größ",
				Body: "Guten Tag Anna Größ,\nFrom now on: Ihr Termin steht.\n", Calendar: []byte("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"), CalendarMethod: "REQUEST"}
			if err := box.Send(context.Background(), fmt.Sprintf("anna%d@example.org", i), m); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	entries := readMbox(t, path)
	if len(entries) != n {
		t.Fatalf("%d mbox entries, want %d", len(entries), n)
	}
	for _, e := range entries {
		msg, err := mail.ReadMessage(strings.NewReader(e))
		if err != nil {
			t.Fatalf("entry is no message: %v\n%s", err, e)
		}
		if got := msg.Header.Get("Subject"); got != "Terminbestätigung für Anna Größ" {
			t.Errorf("subject %q, want it as written", got)
		}
		if !strings.Contains(e, "Guten Tag Anna Größ,\n>From now on") {
			t.Errorf("text not kept as written, or its From line not quoted:\n%s", e)
		}
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mailbox mode %v (%v), want 0600: it holds personal data", info.Mode().Perm(), err)
	}
	for _, secret := range []string{"anna", "Größ", "Terminbest", "Guten Tag"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("log holds %q:\n%s", secret, logs.String())
		}
	}
	if c := strings.Count(logs.String(), path); c != n {
		t.Errorf("the log names the mailbox %d times, want once per e-mail (%d)", c, n)
	}
}

// readMbox splits an mbox file at its "From " separator lines.
func readMbox(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, part := range strings.Split("\n"+string(raw), "\nFrom ")[1:] {
		_, msg, _ := strings.Cut(part, "\n")
		entries = append(entries, msg)
	}
	return entries
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
