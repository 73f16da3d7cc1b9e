package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"strings"
	"time"
)

// SMTP sends e-mail through a mail server with the standard library's client.
// It upgrades to TLS when the server offers STARTTLS, and authenticates with
// PLAIN only when User is set (net/smtp refuses PLAIN over plain text except to
// localhost, so a password never leaves the machine unencrypted).
type SMTP struct {
	// Addr is host:port of the server.
	Addr           string
	From           string
	User, Password string
	// Timeout bounds one message, connection to QUIT; 0 means 30 s.
	Timeout time.Duration
}

// Send delivers m to the address to.
func (s *SMTP) Send(ctx context.Context, to string, m Message) error {
	rcpt, err := mail.ParseAddress(to)
	if err != nil {
		return fmt.Errorf("smtp: recipient %q: %w", to, err)
	}
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return fmt.Errorf("smtp: address %q: %w", s.Addr, err)
	}
	ctx, cancel := context.WithTimeout(ctx, orDefault(s.Timeout, 30*time.Second))
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp: %w", err)
	}
	defer c.Close()
	if err := s.session(c, host, rcpt.Address, compose(s.From, rcpt.Address, m)); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	return nil
}

func (s *SMTP) session(c *smtp.Client, host, to string, data []byte) error {
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return err
		}
	}
	if s.User != "" {
		if err := c.Auth(smtp.PlainAuth("", s.User, s.Password, host)); err != nil {
			return err
		}
	}
	if err := c.Mail(s.From); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// compose writes the message as RFC 5322 text: UTF-8, the subject encoded per
// RFC 2047, the text quoted-printable, marked as sent by a machine. A message
// with a calendar object is multipart/mixed: the text, then the object both
// inline (text/calendar with its method, which mail programs offer to add)
// and named invite.ics.
func compose(from, to string, m Message) []byte {
	var b bytes.Buffer
	header := [][2]string{
		{"From", from},
		{"To", to},
		{"Subject", mime.QEncoding.Encode("utf-8", m.Subject)},
		{"Date", time.Now().Format(time.RFC1123Z)},
		{"Message-ID", "<" + m.Ref + "@" + domainOf(from) + ">"},
		{"Auto-Submitted", "auto-generated"},
		{"MIME-Version", "1.0"},
	}
	for _, h := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	if len(m.Calendar) == 0 {
		b.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
		writeQP(&b, m.Body)
		return b.Bytes()
	}
	// The boundary is the event id's: unique per message, and made of
	// characters that neither base64 nor this text put at a line's start.
	boundary := "termin-part-" + m.Ref
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n", boundary)
	fmt.Fprintf(&b, "--%s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", boundary)
	writeQP(&b, m.Body)
	fmt.Fprintf(&b, "\r\n--%s\r\nContent-Type: text/calendar; charset=utf-8; method=%s; name=invite.ics\r\n"+
		"Content-Disposition: attachment; filename=invite.ics\r\nContent-Transfer-Encoding: base64\r\n\r\n", boundary, m.CalendarMethod)
	enc := base64.StdEncoding.AppendEncode(make([]byte, 0, base64.StdEncoding.EncodedLen(len(m.Calendar))), m.Calendar)
	for len(enc) > 0 {
		n := min(len(enc), 76)
		b.Write(enc[:n])
		b.Write(crlf)
		enc = enc[n:]
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes()
}

var crlf = []byte("\r\n")

func writeQP(w io.Writer, text string) {
	qp := quotedprintable.NewWriter(w)
	_, _ = qp.Write([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
	_ = qp.Close()
}

// domainOf is the domain of an e-mail address, for ids unique to the sender.
func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 && i+1 < len(addr) {
		return strings.Trim(addr[i+1:], "<> ")
	}
	return "termin.invalid"
}

// LogSink is the mail server of `make run` and of any booker without
// SMTP_ADDR: it sends nothing and logs each message in full instead.
type LogSink struct {
	Log *slog.Logger
}

// Send logs m as it would have been sent to to; the calendar file by its
// method and size (at debug level in full).
func (s LogSink) Send(_ context.Context, to string, m Message) error {
	attrs := []any{"to", to, "subject", m.Subject, "body", m.Body}
	if len(m.Calendar) > 0 {
		attrs = append(attrs, "attachment", fmt.Sprintf("invite.ics (METHOD:%s, %d bytes)", m.CalendarMethod, len(m.Calendar)))
		s.Log.Debug("e-mail's calendar file", "to", to, "ics", string(m.Calendar))
	}
	s.Log.Info("e-mail (local sink: not sent; set SMTP_ADDR to send)", attrs...)
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
