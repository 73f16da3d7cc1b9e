package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
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
		return fmt.Errorf("smtp: recipient: %w", err)
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
	return composeAs(from, to, m, quotedPrintable)
}

// textEncoding is how a message's subject and text are written: for a mail
// server, or for a person reading a local mailbox.
type textEncoding struct {
	name    string // the Content-Transfer-Encoding
	subject func(string) string
	body    func(io.Writer, string)
}

var (
	quotedPrintable = textEncoding{"quoted-printable",
		func(s string) string { return mime.QEncoding.Encode("utf-8", s) }, writeQP}
	// eightBit keeps the UTF-8 as it is (RFC 6532), readable in a pager.
	eightBit = textEncoding{"8bit", func(s string) string { return s },
		func(w io.Writer, text string) { _, _ = io.WriteString(w, strings.ReplaceAll(text, "\n", "\r\n")) }}
)

func composeAs(from, to string, m Message, enc textEncoding) []byte {
	var b bytes.Buffer
	header := [][2]string{
		{"From", from},
		{"To", to},
		{"Subject", enc.subject(m.Subject)},
		{"Date", time.Now().Format(time.RFC1123Z)},
		{"Message-ID", "<" + m.Ref + "@" + domainOf(from) + ">"},
		{"Auto-Submitted", "auto-generated"},
		{"MIME-Version", "1.0"},
	}
	for _, h := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	text := "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: " + enc.name + "\r\n\r\n"
	if len(m.Calendar) == 0 {
		b.WriteString(text)
		enc.body(&b, m.Body)
		return b.Bytes()
	}
	// The boundary is the event id's: unique per message, and made of
	// characters that neither base64 nor this text put at a line's start.
	boundary := "termin-part-" + m.Ref
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n", boundary)
	fmt.Fprintf(&b, "--%s\r\n%s", boundary, text)
	enc.body(&b, m.Body)
	fmt.Fprintf(&b, "\r\n--%s\r\nContent-Type: text/calendar; charset=utf-8; method=%s; name=invite.ics\r\n"+
		"Content-Disposition: attachment; filename=invite.ics\r\nContent-Transfer-Encoding: base64\r\n\r\n", boundary, m.CalendarMethod)
	cal := base64.StdEncoding.AppendEncode(make([]byte, 0, base64.StdEncoding.EncodedLen(len(m.Calendar))), m.Calendar)
	for len(cal) > 0 {
		n := min(len(cal), 76)
		b.Write(cal[:n])
		b.Write(crlf)
		cal = cal[n:]
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

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
