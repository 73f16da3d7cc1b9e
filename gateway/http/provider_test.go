package http_test

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway/oidc"
	"termin/gateway/oidc/oidctest"
)

// apiAudience is the audience of the provider's tokens in these tests.
const apiAudience = "termin-api"

// providerEnv is a server that accepts the tokens of an OpenID provider on
// loopback (signing with key) and, when secret is set, HS256 tokens beside.
func providerEnv(t *testing.T, secret []byte, key oidctest.Key, ready bool) (*env, *oidctest.Provider) {
	t.Helper()
	p := oidctest.Start(t, key)
	p.SetDown(!ready)
	v := oidctest.Verifier(t, oidc.Config{Issuer: p.Issuer(), Audience: apiAudience, MaxLifetime: 24 * time.Hour}, ready)
	return newEnv(t, envOptions{secret: secret, provider: v}), p
}

func bearerOf(tok string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + tok}
}

// TestProviderPatientBooksAsItself: a provider's patient is the patient its
// issuer and subject were linked to, books without naming itself and only
// for itself; a renewed token of the same person needs no new link.
func TestProviderPatientBooksAsItself(t *testing.T) {
	key := oidctest.NewKey(t, "k1", jwt.SigningMethodRS256)
	e, p := providerEnv(t, nil, key, true)
	now := time.Now()
	anna := bearerOf(key.Sign(t, oidctest.Claims(p.Issuer(), apiAudience, "anna", now), nil))
	expectStatus(t, e.book(t, "k1", `{"slotId":1001}`, anna), 201)
	expectStatus(t, e.book(t, "k2", `{"slotId":1001,"patientId":1000000000}`, anna), 201)
	expectProblem(t, e.book(t, "k3", `{"slotId":1001,"patientId":77}`, anna), 403, "FORBIDDEN")
	renewed := bearerOf(key.Sign(t, oidctest.With(oidctest.Claims(p.Issuer(), apiAudience, "anna", now),
		jwt.MapClaims{"exp": now.Add(10 * time.Minute).Unix()}), nil))
	expectStatus(t, e.book(t, "k4", `{"slotId":1001}`, renewed), 201)
	ben := bearerOf(key.Sign(t, oidctest.Claims(p.Issuer(), apiAudience, "ben", now), nil))
	expectStatus(t, e.book(t, "k5", `{"slotId":1001}`, ben), 201)
	calls := e.books.bookCalls()
	if len(calls) != 4 || calls[0].PatientID != 1_000_000_000 || calls[2].PatientID != 1_000_000_000 || calls[3].PatientID != 1_000_000_001 {
		t.Fatalf("bookings = %+v, want Anna's three as patient 1000000000 and Ben's as 1000000001", calls)
	}
	if n := e.people.linked(); n != 2 {
		t.Errorf("%d links asked for, want 2 (one per person; a renewed token is remembered)", n)
	}
}

// TestProviderRefusalsSayNothing: every forged or unfit token is refused
// with the same 401 problem as no token at all, whether or not a secret is
// set beside the provider, and reaches neither the queue nor the links.
func TestProviderRefusalsSayNothing(t *testing.T) {
	for _, withSecret := range []bool{false, true} {
		t.Run(map[bool]string{false: "provider only", true: "provider and secret"}[withSecret], func(t *testing.T) {
			key := oidctest.NewKey(t, "k1", jwt.SigningMethodRS256)
			var s []byte
			if withSecret {
				s = secret
			}
			e, p := providerEnv(t, s, key, true)
			want := expectProblem(t, e.book(t, "k0", goodBody, nil), 401, "UNAUTHORIZED")
			for name, tok := range forgeries(t, key, p) {
				got := expectProblem(t, e.book(t, "k1", goodBody, bearerOf(tok)), 401, "UNAUTHORIZED")
				if got.Detail != want.Detail {
					t.Errorf("%s: detail %q, want the same as without a token (%q)", name, got.Detail, want.Detail)
				}
			}
			if n := len(e.books.bookCalls()) + e.people.linked(); n != 0 {
				t.Errorf("%d calls reached the queue or the links with a refused token", n)
			}
		})
	}
}

// forgeries are tokens the provider did not issue for this API, by name.
func forgeries(t *testing.T, key oidctest.Key, p *oidctest.Provider) map[string]string {
	t.Helper()
	now := time.Now()
	good := oidctest.Claims(p.Issuer(), apiAudience, "anna", now)
	der, err := x509.MarshalPKIXPublicKey(key.Priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	hs := oidctest.HS256(t, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), key.KID, good)
	unsigned := oidctest.None(t, key.KID, good)
	attacker := oidctest.NewKey(t, key.KID, jwt.SigningMethodRS256)
	elsewhere := oidctest.Start(t, attacker.Renamed("atk"))
	return map[string]string{
		"alg confusion":                   hs,
		"alg none":                        unsigned,
		"a foreign key under the kid":     attacker.Sign(t, good, nil),
		"jku":                             attacker.Sign(t, good, map[string]any{"kid": "atk", "jku": elsewhere.Issuer() + "/keys"}),
		"jwk":                             attacker.Sign(t, good, map[string]any{"jwk": attacker.JWK(t)}),
		"wrong iss":                       key.Sign(t, oidctest.With(good, jwt.MapClaims{"iss": "https://elsewhere.example"}), nil),
		"wrong aud":                       key.Sign(t, oidctest.With(good, jwt.MapClaims{"aud": "account"}), nil),
		"expired":                         key.Sign(t, oidctest.With(good, jwt.MapClaims{"exp": now.Add(-time.Hour).Unix()}), nil),
		"no kid":                          key.Sign(t, good, map[string]any{"kid": nil}),
		"a doctor without doctorId":       key.Sign(t, oidctest.With(good, jwt.MapClaims{"roles": []string{"doctor"}}), nil),
		"a staff member without practice": key.Sign(t, oidctest.With(good, jwt.MapClaims{"roles": "staff"}), nil),
	}
}

// TestProviderRolesAndScope: a provider's admin, doctor and staff act in
// their role and scope; a token whose roles are none of the four is a
// patient's; the secret's service tokens work beside them.
func TestProviderRolesAndScope(t *testing.T) {
	key := oidctest.NewKey(t, "k1", jwt.SigningMethodES256)
	e, p := providerEnv(t, secret, key, true)
	now := time.Now()
	as := func(changes jwt.MapClaims) map[string]string {
		return bearerOf(key.Sign(t, oidctest.With(oidctest.Claims(p.Issuer(), apiAudience, "person-1", now), changes), nil))
	}
	admin := as(jwt.MapClaims{"roles": []string{"offline_access", "doctor", "admin"}})
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/appointments?patientId=77", header: admin}), 200)
	doctor := as(jwt.MapClaims{"sub": "dr-weber", "roles": []string{"doctor"}, "doctorId": "42"})
	expectStatus(t, e.do(t, req{method: "GET", path: "/api/doctors/42/slots?date=2026-10-12", header: doctor}), 200)
	expectProblem(t, e.book(t, "d1", goodBody, doctor), 403, "FORBIDDEN")
	other := as(jwt.MapClaims{"roles": []string{"offline_access", "uma_authorization"}})
	expectStatus(t, e.book(t, "o1", `{"slotId":1001}`, other), 201)
	expectStatus(t, e.book(t, "s1", goodBody, e.bearer(t, "77", "patient")), 201)
	if got := e.books.bookCalls(); len(got) != 2 || got[0].PatientID < 1_000_000_000 || got[1].PatientID != 77 {
		t.Errorf("bookings = %+v, want the provider's patient and patient 77", got)
	}
	if recs := e.people.accessRecords(); len(recs) == 0 || recs[0].ReaderRole != "admin" || recs[0].ReaderID != "person-1" {
		t.Errorf("access records = %+v, want the provider's admin named by its subject", recs)
	}
}

// TestProviderDownAtStart: while the provider's keys cannot be loaded, its
// tokens are answered 503 UNAVAILABLE (they may be good; nothing can tell),
// never accepted; the secret's service tokens keep working.
func TestProviderDownAtStart(t *testing.T) {
	key := oidctest.NewKey(t, "k1", jwt.SigningMethodRS256)
	e, p := providerEnv(t, secret, key, false)
	tok := key.Sign(t, oidctest.Claims(p.Issuer(), apiAudience, "anna", time.Now()), nil)
	r := e.book(t, "k1", `{"slotId":1001}`, bearerOf(tok))
	expectProblem(t, r, 503, "UNAVAILABLE")
	if r.header["Retry-After"] == "" {
		t.Error("503 without Retry-After")
	}
	expectStatus(t, e.book(t, "k2", goodBody, e.bearer(t, "77", "patient")), 201)
	var body map[string]any
	if err := json.Unmarshal(r.body, &body); err != nil || len(e.books.bookCalls()) != 1 {
		t.Errorf("bookings %d (%v), want only the service token's", len(e.books.bookCalls()), err)
	}
}

// TestSignInConfig: with a provider and a client the pages learn where to
// sign in, and their Content-Security-Policy lets them reach the provider;
// without, they are told to take a pasted token and reach only the gateway.
func TestSignInConfig(t *testing.T) {
	key := oidctest.NewKey(t, "k1", jwt.SigningMethodRS256)
	p := oidctest.Start(t, key)
	v := oidctest.Verifier(t, oidc.Config{Issuer: p.Issuer(), Audience: apiAudience}, true)
	with := newEnv(t, envOptions{provider: v, clientID: "termin-web"})
	r := with.do(t, req{method: "GET", path: "/assets/signin.json"})
	var got struct {
		Issuer, ClientID, Scope string
		Metadata                struct {
			TokenEndpoint string `json:"token_endpoint"`
		}
	}
	if err := json.Unmarshal(r.body, &got); err != nil || got.Issuer != p.Issuer() || got.ClientID != "termin-web" ||
		got.Scope != "openid profile email offline_access" || got.Metadata.TokenEndpoint != p.Issuer()+"/token" {
		t.Errorf("signin.json = %s (%v)", r.body, err)
	}
	if csp := with.do(t, req{method: "GET", path: "/"}).header["Content-Security-Policy"]; !strings.Contains(csp, "connect-src 'self' "+p.Issuer()+";") {
		t.Errorf("CSP %q does not let the page reach the provider", csp)
	}
	without := newEnv(t, envOptions{secret: secret})
	if r := without.do(t, req{method: "GET", path: "/assets/signin.json"}); string(r.body) != "{\"issuer\":\"\"}\n" {
		t.Errorf("signin.json without a provider = %q", r.body)
	}
	if csp := without.do(t, req{method: "GET", path: "/praxis"}).header["Content-Security-Policy"]; !strings.Contains(csp, "connect-src 'self';") {
		t.Errorf("CSP without a provider = %q", csp)
	}
}
