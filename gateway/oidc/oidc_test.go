package oidc_test

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway/oidc"
	"termin/gateway/oidc/oidctest"
)

// TestVerifyRefusesForgeries holds the token checks in one table: the
// provider's tokens of each algorithm pass; a token signed any other way, or
// for another issuer or audience, or out of date, or naming no key, is
// refused, whatever its header points to.
func TestVerifyRefusesForgeries(t *testing.T) {
	t.Parallel()
	rs, es, ed := oidctest.NewKey(t, "rs-1", jwt.SigningMethodRS256), oidctest.NewKey(t, "es-1", jwt.SigningMethodES256), oidctest.NewKey(t, "ed-1", jwt.SigningMethodEdDSA)
	enc := oidctest.NewKey(t, "enc-1", jwt.SigningMethodRS256)
	enc.Use = "enc"
	attacker := oidctest.NewKey(t, "rs-1", jwt.SigningMethodRS256) // a foreign key under the provider's kid
	jku := oidctest.Start(t, attacker.Renamed("atk"))
	p := oidctest.Start(t, rs, es, ed, enc)
	c := newClock()
	v := verifier(t, p, c, nil)
	ready(t, v)
	now := c.now()
	good := claims(p, now)
	pubDER, err := x509.MarshalPKIXPublicKey(rs.Priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	modulus := rs.Priv.Public().(*rsa.PublicKey).N.Bytes()

	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"RS256 of the provider", rs.Sign(t, good, nil), true},
		{"ES256 of the provider", es.Sign(t, good, nil), true},
		{"EdDSA of the provider", ed.Sign(t, good, nil), true},
		{"alg confusion: HS256 with the public key's PEM", oidctest.HS256(t, pubPEM, "rs-1", good), false},
		{"alg confusion: HS256 with the public key's DER", oidctest.HS256(t, pubDER, "rs-1", good), false},
		{"alg confusion: HS256 with the modulus", oidctest.HS256(t, modulus, "rs-1", good), false},
		{"alg none", oidctest.None(t, "rs-1", good), false},
		{"a foreign key under the provider's kid", attacker.Sign(t, good, nil), false},
		{"jku pointing at the attacker's keys", attacker.Sign(t, good, map[string]any{"kid": "atk", "jku": jku.Issuer() + "/keys"}), false},
		{"x5u pointing at the attacker", attacker.Sign(t, good, map[string]any{"kid": "atk", "x5u": jku.Issuer() + "/keys"}), false},
		{"jwk header with the attacker's key", attacker.Sign(t, good, map[string]any{"jwk": attacker.JWK(t)}), false},
		{"jwk header, no kid", attacker.Sign(t, good, map[string]any{"kid": nil, "jwk": attacker.JWK(t)}), false},
		{"no kid", rs.Sign(t, good, map[string]any{"kid": nil}), false},
		{"empty kid", rs.Sign(t, good, map[string]any{"kid": ""}), false},
		{"a key's kid with another key's alg", rs.Sign(t, good, map[string]any{"kid": "es-1"}), false},
		{"an encryption key", enc.Sign(t, good, nil), false},
		{"wrong iss", rs.Sign(t, with(good, jwt.MapClaims{"iss": p.Issuer() + "/other"}), nil), false},
		{"no iss", rs.Sign(t, with(good, jwt.MapClaims{"iss": nil}), nil), false},
		{"wrong aud", rs.Sign(t, with(good, jwt.MapClaims{"aud": "account"}), nil), false},
		{"no aud", rs.Sign(t, with(good, jwt.MapClaims{"aud": nil}), nil), false},
		{"expired", rs.Sign(t, with(good, jwt.MapClaims{"exp": now.Add(-time.Minute).Unix()}), nil), false},
		{"no exp", rs.Sign(t, with(good, jwt.MapClaims{"exp": nil}), nil), false},
		{"exp as a string", rs.Sign(t, with(good, jwt.MapClaims{"exp": fmt.Sprint(now.Add(time.Hour).Unix())}), nil), false},
		{"exp a year ahead", rs.Sign(t, with(good, jwt.MapClaims{"exp": now.Add(8760 * time.Hour).Unix()}), nil), false},
		{"iat in the future", rs.Sign(t, with(good, jwt.MapClaims{"iat": now.Add(time.Hour).Unix()}), nil), false},
		{"nbf in the future", rs.Sign(t, with(good, jwt.MapClaims{"nbf": now.Add(time.Hour).Unix()}), nil), false},
		{"no sub", rs.Sign(t, with(good, jwt.MapClaims{"sub": nil}), nil), false},
		{"doctorId not a number", rs.Sign(t, with(good, jwt.MapClaims{"doctorId": "seven"}), nil), false},
		{"a signature cut short", strings.TrimRight(rs.Sign(t, good, nil), "A")[:300], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(tt.token)
			if tt.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tt.ok && !errors.Is(err, oidc.ErrRefused) {
				t.Fatalf("Verify = %v, want ErrRefused", err)
			}
		})
	}
	if n := jku.Fetches() + jku.Discoveries(); n != 0 {
		t.Errorf("the attacker's jku was fetched %d times; header fields pointing elsewhere must be ignored", n)
	}
}

// TestClaimsReadRolesAndScope: roles come from the configured dotted path,
// the scope claims as numbers or decimal strings, the profile claims as
// they are.
func TestClaimsReadRolesAndScope(t *testing.T) {
	t.Parallel()
	rs, p, c, v := started(t)
	tok := rs.Sign(t, with(claims(p, c.now()), jwt.MapClaims{
		"realm_access": map[string]any{"roles": []any{"offline_access", "staff", 7}}, "practiceId": "12", "doctorId": 4}), nil)
	got, err := v.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Roles, ",") != "offline_access,staff" || got.PracticeID != 12 || got.DoctorID != 4 ||
		got.Subject != "f3a1c2" || got.Issuer != p.Issuer() || got.Name != "Anna Beispiel" || got.Email != "anna@example.org" || got.KeyID != "rs-1" {
		t.Errorf("claims = %+v", got)
	}
}

// TestUnknownKidFloodFetchesOnce: a flood of tokens with kids the provider
// never had, all at once and then again, makes one fetch of the key set;
// the tokens that missed while it ran waited for it. Once UnknownKeyEvery
// has passed, another unknown kid may fetch again, once.
func TestUnknownKidFloodFetchesOnce(t *testing.T) {
	t.Parallel()
	rs, p, c, v := started(t)
	base := p.Fetches()
	flood := func(n int) {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				stranger := rs.Renamed(fmt.Sprintf("unknown-%d", i))
				if _, err := v.Verify(stranger.Sign(t, claims(p, c.now()), nil)); !errors.Is(err, oidc.ErrRefused) {
					t.Errorf("a token of an unknown kid: %v, want refused", err)
				}
			})
		}
		close(start)
		wg.Wait()
	}
	flood(500)
	flood(500)
	if got := p.Fetches() - base; got != 1 {
		t.Fatalf("1,000 tokens of unknown kids fetched the key set %d times, want 1", got)
	}
	c.advance(oidc.DefaultUnknownKeyEvery)
	flood(200)
	if got := p.Fetches() - base; got != 2 {
		t.Fatalf("after %s another flood fetched %d times in all, want 2", oidc.DefaultUnknownKeyEvery, got)
	}
}

// TestKeyRotation: a key the provider adds is accepted at its first token,
// without a restart; a key it withdraws is refused once the key set has
// been fetched again, by an unknown kid or by the periodic refresh.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	old, next, third := oidctest.NewKey(t, "k-1", jwt.SigningMethodRS256), oidctest.NewKey(t, "k-2", jwt.SigningMethodES256), oidctest.NewKey(t, "k-3", jwt.SigningMethodEdDSA)
	p := oidctest.Start(t, old)
	c := newClock()
	v := verifier(t, p, c, nil)
	ready(t, v)
	good := claims(p, c.now())
	if _, err := v.Verify(next.Sign(t, good, nil)); err == nil {
		t.Fatal("a key the provider does not publish was accepted")
	}
	p.SetKeys(t, old, next)
	c.advance(oidc.DefaultUnknownKeyEvery)
	if _, err := v.Verify(next.Sign(t, good, nil)); err != nil {
		t.Fatalf("a key added to the provider's set: %v", err)
	}
	p.SetKeys(t, next, third)
	if !v.Knows("k-1") {
		t.Fatal("the withdrawn key was forgotten before any fetch")
	}
	c.advance(oidc.DefaultUnknownKeyEvery)
	if _, err := v.Verify(third.Sign(t, good, nil)); err != nil {
		t.Fatalf("the third key: %v", err)
	}
	if _, err := v.Verify(old.Sign(t, good, nil)); err == nil || v.Knows("k-1") {
		t.Fatalf("the withdrawn key after a fetch: %v, known %v; want refused", err, v.Knows("k-1"))
	}

	periodic := oidctest.Start(t, old)
	pv := verifier(t, periodic, c, func(cfg *oidc.Config) { cfg.Refresh = 50 * time.Millisecond })
	ready(t, pv)
	periodic.SetKeys(t, next)
	waitFor(t, "the periodic refresh to drop the withdrawn key", func() bool { return !pv.Knows("k-1") })
	if _, err := pv.Verify(old.Sign(t, claims(periodic, c.now()), nil)); err == nil {
		t.Fatal("a withdrawn key verified after the periodic refresh")
	}
}

// TestFailedFetchKeepsKeys: while the provider answers 503, the keys held
// keep verifying its tokens and the Verifier stays ready.
func TestFailedFetchKeepsKeys(t *testing.T) {
	t.Parallel()
	rs := oidctest.NewKey(t, "rs-1", jwt.SigningMethodRS256)
	p := oidctest.Start(t, rs)
	c := newClock()
	v := verifier(t, p, c, func(cfg *oidc.Config) { cfg.Refresh = 20 * time.Millisecond })
	ready(t, v)
	p.SetDown(true)
	before := p.Fetches()
	waitFor(t, "failed fetches", func() bool { return p.Fetches() >= before+3 })
	c.advance(oidc.DefaultUnknownKeyEvery)
	_, _ = v.Verify(rs.Renamed("unknown").Sign(t, claims(p, c.now()), nil))
	if _, err := v.Verify(rs.Sign(t, claims(p, c.now()), nil)); err != nil || v.Ready() != nil {
		t.Fatalf("with the provider down: %v, ready %v; want the held keys kept", err, v.Ready())
	}
}

// TestNotReadyUntilKeysLoad: a provider down when the gateway starts leaves
// it not ready, every provider token answered ErrNotReady (never accepted);
// once the provider answers, the keys load and the token passes.
func TestNotReadyUntilKeysLoad(t *testing.T) {
	t.Parallel()
	rs := oidctest.NewKey(t, "rs-1", jwt.SigningMethodRS256)
	p := oidctest.Start(t, rs)
	p.SetDown(true)
	c := newClock()
	v := verifier(t, p, c, nil)
	tok := rs.Sign(t, claims(p, c.now()), nil)
	waitFor(t, "a failed start", func() bool { return p.Fetches() == 0 && v.Ready() != nil })
	if _, err := v.Verify(tok); !errors.Is(err, oidc.ErrNotReady) {
		t.Fatalf("before the keys: %v, want ErrNotReady", err)
	}
	p.SetDown(false)
	ready(t, v)
	if _, err := v.Verify(tok); err != nil {
		t.Fatal(err)
	}
}

// TestDiscoveryMustNameTheIssuer: a discovery document naming another
// issuer is not taken, so its keys never verify anything.
func TestDiscoveryMustNameTheIssuer(t *testing.T) {
	t.Parallel()
	rs := oidctest.NewKey(t, "rs-1", jwt.SigningMethodRS256)
	p := oidctest.Start(t, rs)
	c := newClock()
	v := verifier(t, p, c, func(cfg *oidc.Config) { cfg.Issuer = p.Issuer() + "/" })
	waitFor(t, "the first load and a retry", func() bool { return p.Discoveries() >= 2 })
	if v.Ready() == nil || p.Fetches() != 0 {
		t.Fatalf("ready %v after %d key fetches, want not ready and none", v.Ready(), p.Fetches())
	}
}

// TestNewRefusesBadConfig: an issuer that is no URL, or no audience, is
// refused before anything starts.
func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []oidc.Config{
		{Issuer: "id.example.org", Audience: audience},
		{Issuer: "ftp://id.example.org", Audience: audience},
		{Issuer: "https://id.example.org?x=1", Audience: audience},
		{Issuer: "https://id.example.org"},
	} {
		if _, err := oidc.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

// TestDiscoveryURLOfItsOwn: a gateway that reaches the provider by another
// address reads the discovery document there; the document must still name
// the configured issuer, whose tokens then pass, and the pages are given no
// endpoints only the gateway may reach.
func TestDiscoveryURLOfItsOwn(t *testing.T) {
	t.Parallel()
	rs := oidctest.NewKey(t, "rs-1", jwt.SigningMethodRS256)
	p := oidctest.Start(t, rs)
	c := newClock()
	public := "https://id.example.org/realms/termin"
	v := verifier(t, p, c, func(cfg *oidc.Config) {
		cfg.Issuer, cfg.DiscoveryURL = public, p.Issuer()+oidctest.DiscoveryPath
	})
	waitFor(t, "a discovery", func() bool { return p.Discoveries() >= 1 })
	if v.Ready() == nil {
		t.Fatal("ready with a document naming another issuer")
	}
	same := verifier(t, p, c, func(cfg *oidc.Config) { cfg.DiscoveryURL = p.Issuer() + oidctest.DiscoveryPath })
	ready(t, same)
	if _, err := same.Verify(rs.Sign(t, claims(p, c.now()), nil)); err != nil || same.BrowserMetadata() != nil || same.Metadata() == nil {
		t.Fatalf("with a discovery URL: %v, browser metadata %v", err, same.BrowserMetadata())
	}
}
