package notify_test

import (
	"context"
	"strings"
	"testing"

	"termin/booker/internal/testkit"
	"termin/booker/notify"
)

func TestSMTPAuthenticatesOnlyWhenUserIsSet(t *testing.T) {
	tests := []struct {
		name, user, wantUser string
	}{
		{"without user, no AUTH", "", ""},
		{"with user, AUTH PLAIN", "praxis", "praxis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := testkit.StartMail(t)
			s := &notify.SMTP{Addr: srv.Addr, From: from, User: tt.user, Password: "secret"}
			m := notify.Message{Ref: "e1", Subject: "Terminbestätigung", Body: "Grüße\nZeile zwei"}
			if err := s.Send(context.Background(), "anna@example.org", m); err != nil {
				t.Fatal(err)
			}
			got := srv.Mails()
			if len(got) != 1 || got[0].User != tt.wantUser || got[0].Subject != m.Subject || strings.TrimSuffix(got[0].Body, "\n") != m.Body {
				t.Fatalf("mails %+v, want one from user %q with the subject and body intact", got, tt.wantUser)
			}
		})
	}
}

func TestSMTPRefusesAMalformedRecipient(t *testing.T) {
	srv := testkit.StartMail(t)
	s := &notify.SMTP{Addr: srv.Addr, From: from}
	err := s.Send(context.Background(), "anna@example.org\r\nRCPT TO:<x@y>", notify.Message{Subject: "x"})
	if err == nil || srv.Attempts() != 0 {
		t.Fatalf("err %v, %d attempts; want an error before any SMTP command", err, srv.Attempts())
	}
}
