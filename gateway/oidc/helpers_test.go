package oidc_test

import (
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway/oidc"
	"termin/gateway/oidc/oidctest"
	"termin/shared/poll"
)

// audience is the API the test tokens are for.
const audience = "termin-api"

// clock is a test's time, moved by hand.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 3, 2, 6, 59, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// verifier runs a Verifier of p's tokens until the test ends.
func verifier(t testing.TB, p *oidctest.Provider, c *clock, tune func(*oidc.Config)) *oidc.Verifier {
	t.Helper()
	cfg := oidc.Config{Issuer: p.Issuer(), Audience: audience, RolesClaim: "realm_access.roles", MaxLifetime: 24 * time.Hour,
		Now: c.now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if tune != nil {
		tune(&cfg)
	}
	return oidctest.Verifier(t, cfg, false)
}

// started is a provider with one RS256 key and a ready Verifier of its
// tokens, on a clock of the test's.
func started(t testing.TB) (oidctest.Key, *oidctest.Provider, *clock, *oidc.Verifier) {
	t.Helper()
	rs := oidctest.NewKey(t, "rs-1", jwt.SigningMethodRS256)
	p := oidctest.Start(t, rs)
	c := newClock()
	v := verifier(t, p, c, nil)
	ready(t, v)
	return rs, p, c, v
}

// claims are a patient's valid claims at now, from p to audience.
func claims(p *oidctest.Provider, now time.Time) jwt.MapClaims {
	return oidctest.Claims(p.Issuer(), audience, "f3a1c2", now)
}

var with = oidctest.With

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	poll.For(t, 10*time.Second, 5*time.Millisecond, func() error {
		if !cond() {
			return errors.New("waiting for " + what)
		}
		return nil
	})
}

// ready waits until v has loaded its keys.
func ready(t testing.TB, v *oidc.Verifier) {
	t.Helper()
	poll.For(t, 10*time.Second, 10*time.Millisecond, v.Ready)
}
