package testkit

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Mail is one message the SMTP server accepted, decoded.
type Mail struct {
	From, To string
	// User is who authenticated with AUTH PLAIN; empty without AUTH.
	User    string
	Header  mail.Header
	Subject string
	// Body is the decoded text, with \n line ends.
	Body string
	// Parts are the parts after the text of a multipart message, decoded.
	Parts []Part
}

// Part is one attachment: its media type with parameters, and its bytes.
type Part struct {
	ContentType string
	Data        []byte
}

// MailServer is a real SMTP server (go-smtp) on a free port that keeps every
// message and can be told to refuse them.
type MailServer struct {
	Addr     string
	mu       sync.Mutex
	mails    []Mail
	attempts int
	refuse   *smtp.SMTPError
}

// StartMail starts the server; it stops when the test ends.
func StartMail(t testing.TB) *MailServer {
	t.Helper()
	ms := &MailServer{}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &session{ms: ms}, nil
	}))
	s.Domain, s.AllowInsecureAuth = "localhost", true
	s.ReadTimeout, s.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ms.Addr = ln.Addr().String()
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return ms
}

// Refuse makes every following MAIL FROM fail with code (4xx or 5xx); 0 accepts again.
func (ms *MailServer) Refuse(code int) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	ms.refuse = nil
	if code != 0 {
		ms.refuse = &smtp.SMTPError{Code: code, EnhancedCode: smtp.NoEnhancedCode, Message: "refused by the test"}
	}
}

// Mails returns the accepted messages so far.
func (ms *MailServer) Mails() []Mail {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]Mail(nil), ms.mails...)
}

// Attempts is the number of MAIL FROM commands received, accepted or not.
func (ms *MailServer) Attempts() int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.attempts
}

type session struct {
	ms             *MailServer
	user, from, to string
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, _ string) error { s.user = user; return nil }), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.ms.mu.Lock()
	defer s.ms.mu.Unlock()
	s.ms.attempts++
	if s.ms.refuse != nil {
		return s.ms.refuse
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error { s.to = to; return nil }

func (s *session) Data(r io.Reader) error {
	m, err := decode(r)
	if err != nil {
		return err
	}
	m.From, m.To, m.User = s.from, s.to, s.user
	s.ms.mu.Lock()
	defer s.ms.mu.Unlock()
	s.ms.mails = append(s.ms.mails, m)
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", "" }
func (s *session) Logout() error { return nil }

func decode(r io.Reader) (Mail, error) {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return Mail{}, err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return Mail{}, err
	}
	m := Mail{Header: msg.Header, Subject: subject}
	media, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(media, "multipart/") {
		text, err := decodeBody(msg.Body, msg.Header.Get("Content-Transfer-Encoding"))
		m.Body = lf(text)
		return m, err
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for i := 0; ; i++ {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return Mail{}, err
		}
		text, err := decodeBody(p, p.Header.Get("Content-Transfer-Encoding"))
		if err != nil {
			return Mail{}, err
		}
		if i == 0 {
			m.Body = lf(text)
			continue
		}
		m.Parts = append(m.Parts, Part{ContentType: p.Header.Get("Content-Type"), Data: text})
	}
}

// decodeBody undoes a quoted-printable or base64 transfer encoding.
func decodeBody(r io.Reader, encoding string) ([]byte, error) {
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	return io.ReadAll(r)
}

func lf(text []byte) string { return string(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))) }
