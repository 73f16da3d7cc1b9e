package notify

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// Mailbox is the mail server of `make run`: it sends nothing and appends each
// e-mail to a local file in mbox format (mboxrd), the text kept as UTF-8, so
// that a pager shows it and any mail program opens it. The log says only
// that an e-mail went there: the message names the patient, the address and
// the appointment, and logs are read by more people than its owner.
type Mailbox struct {
	// Path is the file; it is created, readable by its owner only, when missing.
	Path string
	// From is the sender written in each message.
	From string
	Log  *slog.Logger
	mu   sync.Mutex
}

// Send appends m, as it would have been sent to to, to the mailbox file.
func (b *Mailbox) Send(_ context.Context, to string, m Message) error {
	entry := mboxEntry(b.From, composeAs(b.From, to, m, eightBit))
	b.mu.Lock()
	defer b.mu.Unlock()
	f, err := os.OpenFile(b.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("mailbox: %w", err)
	}
	if _, err := f.Write(entry); err != nil {
		f.Close()
		return fmt.Errorf("mailbox: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("mailbox: %w", err)
	}
	b.Log.Info("e-mail written to the local mailbox, not sent (SMTP_ADDR sends)", "file", b.Path, "event", m.Ref)
	return nil
}

// mboxEntry is one message of an mboxrd file: a "From " separator line, the
// message with LF line ends and every line that begins with ">*From " quoted
// with one more '>', and a blank line.
func mboxEntry(from string, msg []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From %s %s\n", mboxSender(from), time.Now().UTC().Format(time.ANSIC))
	for _, line := range bytes.Split(bytes.ReplaceAll(msg, crlf, []byte("\n")), []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimLeft(line, ">"), []byte("From ")) {
			b.WriteByte('>')
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// mboxSender is the separator line's sender: one word, as mbox readers split it.
func mboxSender(from string) string {
	if from == "" || bytes.ContainsAny([]byte(from), " \t") {
		return "MAILER-DAEMON"
	}
	return from
}

// Unsent is the mail server of a booker given neither SMTP_ADDR nor a
// mailbox file: it sends nothing and logs, without the message or the
// address, that an e-mail was not sent.
type Unsent struct {
	Log *slog.Logger
}

// Send drops m.
func (u Unsent) Send(_ context.Context, _ string, m Message) error {
	u.Log.Info("e-mail not sent: no SMTP_ADDR and no MAIL_FILE", "event", m.Ref)
	return nil
}
