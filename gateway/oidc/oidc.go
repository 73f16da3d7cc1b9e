// Package oidc checks the access tokens of one OpenID Connect provider: it
// reads the provider's discovery document and its key set (JWKS), keeps the
// keys fresh, and verifies a token's signature with the key its kid names,
// by the algorithm that key is for, and its iss, aud and dates. The JOSE
// work (parsing keys, checking signatures) is done by well-kept libraries
// (MicahParks/jwkset and keyfunc, golang-jwt); this package decides which
// keys it holds, when it fetches them again, and what a token must say.
//
// A token whose kid is not among the keys makes the key set be fetched
// again, at most once per UnknownKeyEvery across all such tokens, and
// tokens that miss during a fetch wait for that one fetch; a fetch that
// fails keeps the keys held, so a provider that is down for a while refuses
// no token it signed before.
package oidc

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults of Config.
const (
	DefaultRolesClaim      = "roles"
	DefaultRefresh         = 15 * time.Minute
	DefaultUnknownKeyEvery = 10 * time.Second
	defaultHTTPTimeout     = 10 * time.Second
	// Leeway absorbs clock skew between the provider and the gateways.
	Leeway = 30 * time.Second
)

// Algorithms are the signature algorithms a provider's token may use: the
// asymmetric ones of the contract. HS* is never among them, so no key of
// the JWKS is ever taken as an HMAC secret.
var Algorithms = []string{"RS256", "ES256", "EdDSA"}

// Config says which provider's tokens are accepted and for whom.
type Config struct {
	// Issuer is the provider's issuer URL, equal to its tokens' iss and to
	// the issuer its discovery document names.
	Issuer string
	// Audience must be one of a token's aud.
	Audience string
	// DiscoveryURL, when set, is where the discovery document is read
	// instead of below Issuer: for a gateway that reaches the provider by
	// another address than the browsers do (inside a compose network). The
	// document must still name Issuer.
	DiscoveryURL string
	// RolesClaim names the claim a token's roles are read from; a dotted
	// path (realm_access.roles) reaches into objects. Empty means "roles".
	RolesClaim string
	// MaxLifetime bounds exp - now; 0 leaves it unbounded.
	MaxLifetime time.Duration
	// Refresh is how often the key set is fetched again; 0 means DefaultRefresh.
	Refresh time.Duration
	// UnknownKeyEvery is the least time between two fetches caused by
	// unknown kids; 0 means DefaultUnknownKeyEvery.
	UnknownKeyEvery time.Duration
	// Client fetches the discovery document and the key set; nil means one
	// with a 10 s timeout.
	Client *http.Client
	// Now is the clock of the token's dates and of the fetch limit.
	Now    func() time.Time
	Logger *slog.Logger
}

// Errors of Verify. ErrRefused wraps every reason a token is not accepted;
// ErrNotReady says the keys have not been loaded yet, so that nothing can be
// said of the token.
var (
	ErrRefused  = errors.New("oidc: token refused")
	ErrNotReady = errors.New("oidc: the provider's keys are not loaded yet")
)

// Claims are what a verified token says of its bearer.
type Claims struct {
	Issuer, Subject string
	// Roles are the values of the roles claim, as strings.
	Roles []string
	// Name and Email are the profile claims, when the token has them.
	Name, Email string
	// DoctorID and PracticeID are the doctorId and practiceId claims, 0
	// when absent.
	DoctorID, PracticeID int64
	Expiry               time.Time
	// KeyID is the kid the token was verified with.
	KeyID string
}

// Verifier verifies one provider's tokens. It is safe for concurrent use.
type Verifier struct {
	cfg    Config
	parser *jwt.Parser
	keys   *keySet
	meta   atomic.Pointer[Metadata]
}

// New checks cfg and returns a Verifier that holds no keys until Run has
// loaded them.
func New(cfg Config) (*Verifier, error) {
	if err := checkIssuer(cfg.Issuer); err != nil {
		return nil, err
	}
	if cfg.Audience == "" {
		return nil, errors.New("OIDC_AUDIENCE is required with OIDC_ISSUER")
	}
	if cfg.DiscoveryURL != "" && origin(cfg.DiscoveryURL) == "" {
		return nil, fmt.Errorf("OIDC_DISCOVERY_URL %q must be an absolute http(s) URL", cfg.DiscoveryURL)
	}
	cfg = withDefaults(cfg)
	v := &Verifier{cfg: cfg}
	v.parser = jwt.NewParser(jwt.WithValidMethods(Algorithms), jwt.WithExpirationRequired(), jwt.WithIssuedAt(),
		jwt.WithIssuer(cfg.Issuer), jwt.WithAudience(cfg.Audience), jwt.WithLeeway(Leeway),
		jwt.WithTimeFunc(cfg.Now), jwt.WithJSONNumber())
	v.keys = newKeySet(cfg, v.jwksURI)
	return v, nil
}

func withDefaults(cfg Config) Config {
	if cfg.RolesClaim == "" {
		cfg.RolesClaim = DefaultRolesClaim
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.UnknownKeyEvery <= 0 {
		cfg.UnknownKeyEvery = DefaultUnknownKeyEvery
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: defaultHTTPTimeout}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

// checkIssuer takes an absolute http(s) URL without query or fragment.
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("OIDC_ISSUER %q must be the provider's issuer URL, like https://id.example.org/realms/termin", issuer)
	}
	return nil
}

// Issuer is the issuer whose tokens are accepted.
func (v *Verifier) Issuer() string { return v.cfg.Issuer }

// Ready is nil once the provider's keys are loaded.
func (v *Verifier) Ready() error {
	if !v.keys.loaded() {
		return ErrNotReady
	}
	return nil
}

// Knows reports whether the key kid is still among the provider's keys: a
// token verified with a key the provider has since withdrawn is refused.
func (v *Verifier) Knows(kid string) bool { return v.keys.knows(kid) }

// Fetches counts the key set's fetches so far, successful or not.
func (v *Verifier) Fetches() int64 { return v.keys.fetches.Load() }

// Verify checks a token and returns its claims: a kid in the header, a key
// of that kid, signed by the algorithm of that key, iss, aud, exp (and iat,
// nbf when present) as Config says. Header fields that point to keys
// elsewhere (jku, x5u, jwk) are never read.
func (v *Verifier) Verify(token string) (Claims, error) {
	if !v.keys.loaded() {
		return Claims{}, ErrNotReady
	}
	var raw jwt.MapClaims
	t, err := v.parser.ParseWithClaims(token, &raw, v.keys.keyfunc)
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	c, err := v.claims(raw)
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	c.KeyID, _ = t.Header["kid"].(string)
	return c, nil
}

// claims reads what the gateway needs from a verified token's claims.
func (v *Verifier) claims(raw jwt.MapClaims) (Claims, error) {
	sub, _ := raw["sub"].(string)
	if sub == "" || len(sub) > 255 {
		return Claims{}, errors.New("sub must be a string of 1 to 255 characters")
	}
	exp, err := raw.GetExpirationTime()
	if err != nil || exp == nil {
		return Claims{}, errors.New("exp is required")
	}
	if max := v.cfg.MaxLifetime; max > 0 && exp.Sub(v.cfg.Now()) > max+Leeway {
		return Claims{}, fmt.Errorf("exp is more than %s ahead", max)
	}
	c := Claims{Issuer: v.cfg.Issuer, Subject: sub, Expiry: exp.Time, Roles: roles(raw, v.cfg.RolesClaim)}
	c.Name, _ = raw["name"].(string)
	c.Email, _ = raw["email"].(string)
	if c.DoctorID, err = positiveID(raw["doctorId"]); err != nil {
		return Claims{}, fmt.Errorf("doctorId: %w", err)
	}
	if c.PracticeID, err = positiveID(raw["practiceId"]); err != nil {
		return Claims{}, fmt.Errorf("practiceId: %w", err)
	}
	return c, nil
}

// origin is the scheme and host of an absolute URL, "" for anything else.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
