// Package devidp is `make run`'s development OpenID provider: an OpenID
// Connect provider built on zitadel/oidc's op package (an OpenID-certified
// implementation of the protocol), with the demo people, a German sign-in
// form that asks no password, and everything held in memory. The pages sign
// in through it with Authorization Code and PKCE as they would at a
// practice's or a health service's provider, and the gateway verifies its
// tokens as it verifies any provider's.
//
// It is for development and the tests only: anyone who reaches its form
// signs in as any demo person.
package devidp

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/rs/cors"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Defaults of Config.
const (
	DefaultAudience            = "termin-api"
	DefaultClientID            = "termin-web"
	DefaultAccessTokenLifetime = 5 * time.Minute
	refreshTokenLifetime       = 12 * time.Hour
)

// Person is one of the people who may sign in.
type Person struct {
	// Subject is the person's sub at this provider.
	Subject string
	// Label is what the sign-in form shows.
	Label       string
	Name, Email string
	// Roles go into the access token's roles claim; DoctorID and
	// PracticeID, when set, into doctorId and practiceId.
	Roles                []string
	DoctorID, PracticeID int64
}

// DemoPatientSubject is the subject of the demo patient, whom `make run`
// links to patient 77, the patient of the README's requests.
const DemoPatientSubject = "patient-77"

// DemoPeople are `make run`'s people: patient 77, a doctor (demo doctor 1),
// the staff of practice 1 and an admin.
var DemoPeople = []Person{
	{Subject: DemoPatientSubject, Label: "Anna Muster – Patientin (Nr. 77)", Name: "Anna Muster", Email: "anna.muster@example.org", Roles: []string{"patient"}},
	{Subject: "doctor-1", Label: "Dr. Anna Weber – Ärztin (Arzt-Nr. 1)", Name: "Dr. Anna Weber", Roles: []string{"doctor"}, DoctorID: 1},
	{Subject: "staff-1", Label: "Empfang – Praxis 1", Name: "Empfang Praxis 1", Roles: []string{"staff"}, PracticeID: 1},
	{Subject: "admin", Label: "Verwaltung – alle Rechte", Name: "Verwaltung", Roles: []string{"admin"}},
}

// Config says where the provider listens and what it issues.
type Config struct {
	// Addr is the listen address; empty means a free loopback port.
	Addr string
	// Audience is added to every access token's aud: the API's name, the
	// gateway's OIDC_AUDIENCE.
	Audience string
	// ClientID is the pages' public client.
	ClientID string
	// AccessTokenLifetime is how long an access token lives; the pages
	// renew it before then.
	AccessTokenLifetime time.Duration
	// People may sign in; nil means DemoPeople.
	People []Person
	Logger *slog.Logger
}

// Provider is a running development provider.
type Provider struct {
	cfg    Config
	issuer string
	store  *storage
	srv    *http.Server
	ln     net.Listener
}

// Start listens and serves until Close.
func Start(cfg Config) (*Provider, error) {
	cfg = withDefaults(cfg)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("development OpenID provider: %w", err)
	}
	p := &Provider{cfg: cfg, issuer: "http://" + ln.Addr().String(), ln: ln}
	if p.store, err = newStorage(cfg); err != nil {
		ln.Close()
		return nil, err
	}
	handler, err := p.handler()
	if err != nil {
		ln.Close()
		return nil, err
	}
	p.srv = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.Logger.Error("development OpenID provider stopped", "err", err)
		}
	}()
	return p, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Audience == "" {
		cfg.Audience = DefaultAudience
	}
	if cfg.ClientID == "" {
		cfg.ClientID = DefaultClientID
	}
	if cfg.AccessTokenLifetime <= 0 {
		cfg.AccessTokenLifetime = DefaultAccessTokenLifetime
	}
	if cfg.People == nil {
		cfg.People = DemoPeople
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

// handler is the op package's provider with the sign-in form beside it.
// Only the pages' origins (AllowApp) may call it from a browser.
func (p *Provider) handler() (http.Handler, error) {
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		return nil, err
	}
	config := &op.Config{CryptoKey: key, CodeMethodS256: true, GrantTypeRefreshToken: true,
		SupportedUILocales: []language.Tag{language.German}, DefaultLogoutRedirectURI: signedOutPath}
	corsOpts := &cors.Options{AllowOriginFunc: p.store.allowedOrigin, AllowedMethods: []string{http.MethodGet, http.MethodPost},
		AllowedHeaders: []string{"Accept", "Authorization", "Content-Type"}}
	provider, err := op.NewProvider(config, p.store, op.StaticIssuer(p.issuer), op.WithAllowInsecure(),
		op.WithCORSOptions(corsOpts))
	if err != nil {
		return nil, fmt.Errorf("development OpenID provider: %w", err)
	}
	mux := http.NewServeMux()
	l := &login{store: p.store, callback: op.AuthCallbackURL(provider), people: p.cfg.People}
	mux.HandleFunc("GET "+loginPath, l.form)
	mux.Handle("POST "+loginPath, op.NewIssuerInterceptor(provider.IssuerFromRequest).Handler(http.HandlerFunc(l.signIn)))
	mux.HandleFunc("GET "+signedOutPath, l.signedOut)
	mux.Handle("/", provider)
	return mux, nil
}

// Issuer is the provider's issuer URL: the gateway's OIDC_ISSUER.
func (p *Provider) Issuer() string { return p.issuer }

// ClientID is the pages' client: the gateway's OIDC_CLIENT_ID.
func (p *Provider) ClientID() string { return p.cfg.ClientID }

// Audience is the API's name in access tokens: the gateway's OIDC_AUDIENCE.
func (p *Provider) Audience() string { return p.cfg.Audience }

// AllowApp lets the pages served at baseURL (the gateway's URL) sign in:
// its patient page and practice page become the client's redirect and
// sign-out addresses, and its origin may call the token endpoint.
func (p *Provider) AllowApp(baseURL string) {
	base := strings.TrimSuffix(baseURL, "/")
	p.store.allowApp(base, []string{base + "/", base + "/praxis"})
}

// Sessions counts the sign-in sessions the provider holds: a person who
// signed in and has not signed out.
func (p *Provider) Sessions() int { return p.store.sessions.count() }

// Close stops the provider.
func (p *Provider) Close(ctx context.Context) error { return p.srv.Shutdown(ctx) }

// KeyID is the kid of the provider's signing key.
func (p *Provider) KeyID() string { return p.store.key.id }

// Sign signs claims with the provider's key, as it signs its access tokens,
// for tests that need a token this provider would not issue: for another
// audience, expired, with another issuer.
func (p *Provider) Sign(claims jwt.MapClaims) (string, error) {
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = p.store.key.id
	return tok.SignedString(p.store.key.priv)
}
