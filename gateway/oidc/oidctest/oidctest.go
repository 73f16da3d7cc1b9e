// Package oidctest runs an OpenID provider's public side on loopback for
// tests: a discovery document and a key set, whose fetches it counts and
// which a test changes, and keys that sign tokens as the provider would (or
// as a forger would). It signs with golang-jwt and publishes keys with
// jwkset, the libraries the gateway verifies with.
package oidctest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"termin/gateway/oidc"
	"termin/shared/poll"
)

// DiscoveryPath is where, below the issuer, the discovery document is.
const DiscoveryPath = "/.well-known/openid-configuration"

// Key is one signing key: its kid, the algorithm it is for, its use ("sig"
// or "enc") and the private key.
type Key struct {
	KID  string
	Alg  jwt.SigningMethod
	Use  string
	Priv crypto.Signer
}

// NewKey makes a key of alg (RS256, ES256 or EdDSA) named kid.
func NewKey(tb testing.TB, kid string, alg jwt.SigningMethod) Key {
	tb.Helper()
	var priv crypto.Signer
	var err error
	switch alg {
	case jwt.SigningMethodRS256:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case jwt.SigningMethodES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case jwt.SigningMethodEdDSA:
		_, priv, err = ed25519.GenerateKey(rand.Reader)
	default:
		tb.Fatalf("oidctest: no key for %s", alg.Alg())
	}
	if err != nil {
		tb.Fatal(err)
	}
	return Key{KID: kid, Alg: alg, Use: "sig", Priv: priv}
}

// Renamed is the same key under another kid.
func (k Key) Renamed(kid string) Key {
	k.KID = kid
	return k
}

// JWK is the key's public JWK, as a provider publishes it.
func (k Key) JWK(tb testing.TB) jwkset.JWKMarshal {
	tb.Helper()
	j, err := jwkset.NewJWKFromKey(k.Priv.Public(), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{
		KID: k.KID, ALG: jwkset.ALG(k.Alg.Alg()), USE: jwkset.USE(k.Use)}})
	if err != nil {
		tb.Fatal(err)
	}
	return j.Marshal()
}

// Sign makes a token of claims with the key, its kid in the header, and
// the header fields of extra (a nil value removes one).
func (k Key) Sign(tb testing.TB, claims jwt.MapClaims, extra map[string]any) string {
	tb.Helper()
	tok := jwt.NewWithClaims(k.Alg, claims)
	tok.Header["kid"] = k.KID
	for name, v := range extra {
		if v == nil {
			delete(tok.Header, name)
			continue
		}
		tok.Header[name] = v
	}
	s, err := tok.SignedString(k.Priv)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// Claims are valid claims of sub at now, from issuer to audience, living
// five minutes, with a name and an e-mail address.
func Claims(issuer, audience, sub string, now time.Time) jwt.MapClaims {
	return jwt.MapClaims{"iss": issuer, "aud": []string{audience, "account"}, "sub": sub, "iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(), "name": "Anna Beispiel", "email": "anna@example.org"}
}

// With is claims with some changed; a nil value removes the claim.
func With(claims, changes jwt.MapClaims) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range claims {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// Provider serves the discovery document and the key set on loopback.
type Provider struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys []jwkset.JWKMarshal
	down bool
	// fetches and discoveries count the requests of the key set and of the
	// discovery document.
	fetches, discoveries atomic.Int64
}

// Start serves keys until the test ends.
func Start(tb testing.TB, keys ...Key) *Provider {
	tb.Helper()
	p := &Provider{}
	p.SetKeys(tb, keys...)
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DiscoveryPath, func(w http.ResponseWriter, r *http.Request) {
		p.discoveries.Add(1)
		if p.isDown() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, map[string]string{"issuer": p.Issuer(), "jwks_uri": p.Issuer() + "/keys",
			"authorization_endpoint": p.Issuer() + "/authorize", "token_endpoint": p.Issuer() + "/token"})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		p.fetches.Add(1)
		if p.isDown() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		writeJSON(w, jwkset.JWKSMarshal{Keys: p.keys})
	})
	p.srv = httptest.NewServer(mux)
	tb.Cleanup(p.srv.Close)
	return p
}

// Issuer is the provider's issuer URL.
func (p *Provider) Issuer() string { return p.srv.URL }

// Fetches counts the key set's fetches so far.
func (p *Provider) Fetches() int64 { return p.fetches.Load() }

// Discoveries counts the discovery document's fetches so far.
func (p *Provider) Discoveries() int64 { return p.discoveries.Load() }

// SetKeys replaces the keys the provider publishes.
func (p *Provider) SetKeys(tb testing.TB, keys ...Key) {
	tb.Helper()
	set := make([]jwkset.JWKMarshal, len(keys))
	for i, k := range keys {
		set[i] = k.JWK(tb)
	}
	p.mu.Lock()
	p.keys = set
	p.mu.Unlock()
}

// SetDown makes the provider answer 503 to everything, or answer again.
func (p *Provider) SetDown(down bool) {
	p.mu.Lock()
	p.down = down
	p.mu.Unlock()
}

func (p *Provider) isDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Verifier runs a Verifier of cfg (its key loading) until the test ends;
// with ready it waits until the provider's keys are loaded.
func Verifier(tb testing.TB, cfg oidc.Config, ready bool) *oidc.Verifier {
	tb.Helper()
	v, err := oidc.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		v.Run(ctx)
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	if ready {
		poll.For(tb, 10*time.Second, 10*time.Millisecond, v.Ready)
	}
	return v
}

// HS256 signs claims with HS256 and secret, naming kid: with the provider's
// public key as the secret, the algorithm-confusion attack.
func HS256(tb testing.TB, secret []byte, kid string, claims jwt.MapClaims) string {
	tb.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(secret)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// None is a token of claims with alg none and no signature, naming kid.
func None(tb testing.TB, kid string, claims jwt.MapClaims) string {
	tb.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodNone, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
