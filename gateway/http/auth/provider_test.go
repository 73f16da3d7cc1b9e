package auth_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/oidc"
	"termin/gateway/oidc/oidctest"
	"termin/shared"
)

// identities is a fake auth.Identities: each person its patient id from
// 1,000,000,000 on, a new one after it is forgotten, and a count of calls.
type identities struct {
	mu    sync.Mutex
	ids   map[string]int64
	next  int64
	calls int
}

func (f *identities) Link(_ context.Context, id shared.Identity) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.ids == nil {
		f.ids, f.next = map[string]int64{}, 1_000_000_000
	}
	if _, ok := f.ids[id.Subject]; !ok {
		f.ids[id.Subject] = f.next
		f.next++
	}
	return f.ids[id.Subject], nil
}

func (f *identities) unlink(sub string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ids, sub)
}

func (f *identities) called() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// authenticator checks the tokens of a provider on loopback with key.
func authenticator(t *testing.T, key oidctest.Key, ids auth.Identities) (*auth.Authenticator, *oidctest.Provider, *oidc.Verifier) {
	t.Helper()
	p := oidctest.Start(t, key)
	v := oidctest.Verifier(t, oidc.Config{Issuer: p.Issuer(), Audience: "api"}, true)
	a, err := auth.New(auth.Config{Provider: v, Identities: ids})
	if err != nil {
		t.Fatal(err)
	}
	return a, p, v
}

// TestRememberedTokenNeedsItsKey: a provider's token is checked once and
// then remembered, but only while the key that verified it is still the
// provider's: once a fetch of the key set drops the key, the remembered
// token is refused.
func TestRememberedTokenNeedsItsKey(t *testing.T) {
	t.Parallel()
	old, next := oidctest.NewKey(t, "k1", jwt.SigningMethodRS256), oidctest.NewKey(t, "k2", jwt.SigningMethodRS256)
	ids := &identities{}
	a, p, _ := authenticator(t, old, ids)
	header := []byte("Bearer " + old.Sign(t, oidctest.Claims(p.Issuer(), "api", "anna", time.Now()), nil))
	for range 3 {
		if who, err := a.Authenticate(context.Background(), header); err != nil || who.PatientID != 1_000_000_000 {
			t.Fatalf("the provider's token: %+v %v", who, err)
		}
	}
	p.SetKeys(t, next)
	fetches := p.Fetches()
	if _, err := a.Authenticate(context.Background(), []byte("Bearer "+next.Sign(t, oidctest.Claims(p.Issuer(), "api", "ben", time.Now()), nil))); err != nil {
		t.Fatalf("a token of the new key: %v", err)
	}
	if p.Fetches() != fetches+1 {
		t.Fatalf("the new key's token fetched the key set %d times, want once", p.Fetches()-fetches)
	}
	if _, err := a.Authenticate(context.Background(), header); !errors.Is(err, gateway.ErrUnauthorized) {
		t.Fatalf("a remembered token of a withdrawn key: %v, want UNAUTHORIZED", err)
	}
}

// TestForgetEndsTheLink: after an erasure the person's remembered token no
// longer names the erased patient; its next use links the person anew.
func TestForgetEndsTheLink(t *testing.T) {
	t.Parallel()
	key := oidctest.NewKey(t, "k1", jwt.SigningMethodES256)
	ids := &identities{}
	a, p, _ := authenticator(t, key, ids)
	header := []byte("Bearer " + key.Sign(t, oidctest.Claims(p.Issuer(), "api", "anna", time.Now()), nil))
	first, err := a.Authenticate(context.Background(), header)
	if err != nil {
		t.Fatal(err)
	}
	ids.unlink("anna")
	a.Forget(first.PatientID)
	again, err := a.Authenticate(context.Background(), header)
	if err != nil || again.PatientID == first.PatientID || ids.called() != 2 {
		t.Fatalf("after Forget: patient %d (%v), %d links; want a new patient and a second link", again.PatientID, err, ids.called())
	}
}

// TestNewNeedsSecretOrProvider: a gateway without a usable secret or a
// provider does not start, nor one with a provider and a short secret, nor
// a provider without a way to find its patients.
func TestNewNeedsSecretOrProvider(t *testing.T) {
	t.Parallel()
	v, err := oidc.New(oidc.Config{Issuer: "https://id.example.org", Audience: "api"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  auth.Config
	}{
		{"nothing", auth.Config{}},
		{"a short secret", auth.Config{Secret: []byte("short")}},
		{"a provider and a short secret", auth.Config{Provider: v, Identities: &identities{}, Secret: []byte("short")}},
		{"a provider without identities", auth.Config{Provider: v}},
	} {
		if _, err := auth.New(c.cfg); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if _, err := auth.New(auth.Config{Provider: v, Identities: &identities{}}); err != nil {
		t.Errorf("a provider alone: %v", err)
	}
}

// TestLinkIsAskedAgainAfterAWhile: a link is remembered for minutes, not
// for ever, so that an erasure through another gateway (which ends the link
// there) reaches this one too; the same token then names the new patient.
func TestLinkIsAskedAgainAfterAWhile(t *testing.T) {
	t.Parallel()
	key := oidctest.NewKey(t, "k1", jwt.SigningMethodRS256)
	ids := &identities{}
	p := oidctest.Start(t, key)
	v := oidctest.Verifier(t, oidc.Config{Issuer: p.Issuer(), Audience: "api"}, true)
	now := time.Now()
	clock := func() time.Time { return now }
	a, err := auth.New(auth.Config{Provider: v, Identities: ids, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	header := []byte("Bearer " + key.Sign(t, oidctest.With(oidctest.Claims(p.Issuer(), "api", "anna", now),
		jwt.MapClaims{"exp": now.Add(time.Hour).Unix()}), nil))
	first, err := a.Authenticate(context.Background(), header)
	if err != nil {
		t.Fatal(err)
	}
	ids.unlink("anna") // erased through another gateway
	if again, err := a.Authenticate(context.Background(), header); err != nil || again.PatientID != first.PatientID {
		t.Fatalf("at once: %+v %v, want the remembered patient", again, err)
	}
	now = now.Add(6 * time.Minute)
	if later, err := a.Authenticate(context.Background(), header); err != nil || later.PatientID == first.PatientID || ids.called() != 2 {
		t.Fatalf("six minutes on: %+v %v (%d links), want the link asked again", later, err, ids.called())
	}
}
