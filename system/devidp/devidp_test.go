package devidp_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"

	"termin/gateway/oidc"
	"termin/gateway/oidc/oidctest"
	"termin/system/devidp"
)

// pages is where the test's pages would be; the provider sends the
// browser back there and nothing needs to answer.
const pages = "http://127.0.0.1:9/"

// TestSignInRenewSignOut: a browser signs in through the form with PKCE,
// and the access token it gets passes the gateway's verifier with the
// person's roles, profile and the API's audience; it renews with its
// refresh token; signing out ends the provider's session, after which the
// refresh token renews nothing and the next sign-in needs the form again.
func TestSignInRenewSignOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := start(t, devidp.Config{})
	v := verifier(t, p)
	b, err := devidp.NewBrowser(ctx, p.Issuer(), p.ClientID(), pages)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.Discovery.CodeChallengeTypes, "S256") || b.Discovery.EndSession == "" {
		t.Fatalf("discovery = %+v, want PKCE S256 and an end_session_endpoint", b.Discovery)
	}
	tok, err := b.SignIn(ctx, devidp.DemoPatientSubject)
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Verify(tok.AccessToken)
	if err != nil {
		t.Fatalf("the access token: %v", err)
	}
	if c.Subject != devidp.DemoPatientSubject || !slices.Contains(c.Roles, "patient") || c.Name != "Anna Muster" || c.Email == "" {
		t.Errorf("claims = %+v", c)
	}
	if p.Sessions() != 1 {
		t.Errorf("%d sessions after a sign-in, want 1", p.Sessions())
	}
	renewed, err := b.Renew(ctx, tok)
	if err != nil || renewed.AccessToken == tok.AccessToken {
		t.Fatalf("renewal: %v (same token %v)", err, renewed != nil && renewed.AccessToken == tok.AccessToken)
	}
	if _, err := v.Verify(renewed.AccessToken); err != nil {
		t.Fatalf("the renewed token: %v", err)
	}
	if err := b.SignOut(ctx, renewed); err != nil {
		t.Fatal(err)
	}
	if p.Sessions() != 0 {
		t.Errorf("%d sessions after signing out, want 0", p.Sessions())
	}
	if _, err := b.Renew(ctx, renewed); err == nil {
		t.Error("a refresh token renewed after signing out")
	}
}

// TestStaffAndDoctorClaims: the demo doctor's and staff's tokens carry
// their role and scope, as the gateway reads them.
func TestStaffAndDoctorClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := start(t, devidp.Config{})
	v := verifier(t, p)
	for _, who := range []struct {
		subject, role        string
		doctorID, practiceID int64
	}{{"doctor-1", "doctor", 1, 0}, {"staff-1", "staff", 0, 1}, {"admin", "admin", 0, 0}} {
		b, err := devidp.NewBrowser(ctx, p.Issuer(), p.ClientID(), pages)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := b.SignIn(ctx, who.subject)
		if err != nil {
			t.Fatal(err)
		}
		c, err := v.Verify(tok.AccessToken)
		if err != nil || !slices.Contains(c.Roles, who.role) || c.DoctorID != who.doctorID || c.PracticeID != who.practiceID {
			t.Errorf("%s: %+v %v", who.subject, c, err)
		}
	}
}

func start(t *testing.T, cfg devidp.Config) *devidp.Provider {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := devidp.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	p.AllowApp(pages)
	return p
}

func verifier(t *testing.T, p *devidp.Provider) *oidc.Verifier {
	t.Helper()
	return oidctest.Verifier(t, oidc.Config{Issuer: p.Issuer(), Audience: p.Audience(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, true)
}
