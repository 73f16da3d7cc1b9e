// Package auth checks the API's bearer tokens and says what the caller they
// name may do: act for a patient, or see and manage a doctor's days. A
// token is an OpenID Connect provider's (checked by package oidc, its
// person's patient id found through Identities) or, for services and the
// load test, an HS256 token signed with the gateway's secret. It is a
// package of its own, beneath the HTTP server, so that every check of who
// may do what sits in one place that the routes ask, and the server keeps
// to routing and answering.
package auth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway"
	"termin/gateway/oidc"
)

// The roles a token may carry: a patient acts for itself, a doctor for its
// own plan and days (doctorId claim), practice staff for the doctors of
// their practice (practiceId claim), an admin for everyone.
const (
	RolePatient = "patient"
	RoleDoctor  = "doctor"
	RoleStaff   = "staff"
	RoleAdmin   = "admin"
)

// Bounds of the token checks (RFC 8725). The leeway absorbs clock skew
// between the issuer and the gateways; the maximum lifetime keeps a stolen
// or forgotten token from working for years.
const (
	// MinSecretLen is the shortest HS256 key the gateway accepts: 256 bits,
	// the hash's own size (RFC 7518 section 3.2).
	MinSecretLen       = 32
	DefaultMaxLifetime = 24 * time.Hour
	authLeeway         = 30 * time.Second
	maxTokenLen        = 2048
	// maxProviderTokenLen bounds a provider's token: an access token with
	// its roles is one or two KiB, and the request's headers are at most 8 KiB.
	maxProviderTokenLen = 6144
)

// Config says how bearer tokens are checked.
type Config struct {
	// Secret is the HS256 key, at least MinSecretLen bytes; empty when only
	// the provider's tokens are accepted.
	Secret []byte
	// Disabled turns authentication off: every caller acts as an admin.
	// It must be said explicitly; an empty Secret alone is refused.
	Disabled bool
	// Issuer and Audience, when set, must be an HS256 token's iss and one of its aud.
	Issuer, Audience string
	// MaxLifetime bounds exp - iat and exp - now; 0 means DefaultMaxLifetime.
	MaxLifetime time.Duration
	// Provider verifies the tokens of the OpenID Connect provider, when one
	// is configured; its patients' ids come from Identities.
	Provider   *oidc.Verifier
	Identities Identities
	// Now is the clock of the remembered tokens' expiry; nil means time.Now.
	Now func() time.Time
}

// ErrNoSecret is New's answer (and so the HTTP server's) to a configuration that has neither
// a usable secret nor a provider, nor disables authentication explicitly.
var ErrNoSecret = fmt.Errorf("AUTH_SECRET (at least %d bytes) or OIDC_ISSUER with OIDC_AUDIENCE is required (or AUTH_DISABLED=1 for development)", MinSecretLen)

// errNoIdentities refuses a provider without a way to find its patients.
var errNoIdentities = errors.New("auth: a provider's tokens need Identities to find their patients")

// Authenticator checks bearer tokens. A nil Authenticator means
// authentication is off and every caller is an admin.
type Authenticator struct {
	secret      []byte
	parser      *jwt.Parser
	maxLifetime time.Duration
	provider    *oidc.Verifier
	patients    *patients
	verified    verifiedTokens
	now         func() time.Time
}

// New fails closed: without a secret of MinSecretLen bytes or a provider it
// returns an error unless authentication is disabled explicitly; a secret
// that is set must be long enough either way.
func New(cfg Config) (*Authenticator, error) {
	switch {
	case cfg.Disabled:
		return nil, nil
	case len(cfg.Secret) < MinSecretLen && (cfg.Provider == nil || len(cfg.Secret) > 0):
		return nil, ErrNoSecret
	case cfg.Provider != nil && cfg.Identities == nil:
		return nil, errNoIdentities
	}
	if cfg.MaxLifetime <= 0 {
		cfg.MaxLifetime = DefaultMaxLifetime
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(), jwt.WithLeeway(authLeeway), jwt.WithTimeFunc(cfg.Now)}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	return &Authenticator{secret: bytes.Clone(cfg.Secret), parser: jwt.NewParser(opts...), maxLifetime: cfg.MaxLifetime,
		provider: cfg.Provider, patients: newPatients(cfg.Identities, cfg.Now), now: cfg.Now}, nil
}

var bearerPrefix = []byte("bearer ")

// Authenticate turns the Authorization header into a Principal, or an
// UNAUTHORIZED error that names no check: which one a token failed is of
// use to whoever forges it. A provider's token that cannot be checked yet
// (its keys are not loaded) or whose patient cannot be found now (no
// booker answers) is UNAVAILABLE instead: the token may be good.
func (a *Authenticator) Authenticate(ctx context.Context, header []byte) (Principal, error) {
	if a == nil {
		return Principal{Admin: true}, nil
	}
	if len(header) <= len(bearerPrefix) || !bytes.EqualFold(header[:len(bearerPrefix)], bearerPrefix) {
		return Principal{}, gateway.ErrUnauthorized
	}
	token, now := bytes.TrimSpace(header[len(bearerPrefix):]), a.now()
	if who, ok := a.verified.get(token, now, a.provider); ok {
		return who, nil
	}
	if len(token) > maxProviderTokenLen {
		return Principal{}, gateway.ErrUnauthorized
	}
	if a.provider != nil && (len(a.secret) == 0 || headerAlg(token) != "HS256") {
		return a.fromProvider(ctx, token)
	}
	if len(token) > maxTokenLen {
		return Principal{}, gateway.ErrUnauthorized
	}
	c, err := a.parse(token, now)
	if err != nil {
		return Principal{}, gateway.ErrUnauthorized
	}
	who, err := c.principal()
	if err != nil {
		return Principal{}, gateway.ErrUnauthorized
	}
	a.verified.put(token, verifiedToken{who: who, until: c.Exp.Time.Add(authLeeway)})
	return who, nil
}

// Forget drops what is remembered of a patient whose link to its provider's
// person ended (erasure): that person's next token makes a new patient.
func (a *Authenticator) Forget(patientID int64) {
	if a == nil || a.provider == nil {
		return
	}
	a.patients.forget(patientID)
	a.verified.forget(patientID)
}

// headerAlg reads a token's alg from its header, "" when there is none:
// which key checks a token depends on it, the HS256 secret or the
// provider's keys; the check itself is the libraries'.
func headerAlg(token []byte) string {
	head, _, ok := bytes.Cut(token, []byte("."))
	if !ok || len(head) > 1024 {
		return ""
	}
	raw := make([]byte, base64.RawURLEncoding.DecodedLen(len(head)))
	n, err := base64.RawURLEncoding.Decode(raw, head)
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(raw[:n], &h) != nil {
		return ""
	}
	return h.Alg
}

// parse checks a token's signature and dates and returns its claims.
func (a *Authenticator) parse(token []byte, now time.Time) (*claims, error) {
	var c claims
	if _, err := a.parser.ParseWithClaims(string(token), &c, a.key); err != nil {
		return nil, fmt.Errorf("%w: %w", gateway.ErrUnauthorized, err)
	}
	if err := c.lifetime(now, a.maxLifetime); err != nil {
		return nil, fmt.Errorf("%w: %v", gateway.ErrUnauthorized, err)
	}
	return &c, nil
}

func (a *Authenticator) key(*jwt.Token) (any, error) { return a.secret, nil }

// lifetime refuses a token that would stay valid longer than max: counted
// from its iat when it has one, and from now in any case.
func (c *claims) lifetime(now time.Time, max time.Duration) error {
	exp := c.Exp.Time
	if exp.Sub(now) > max+authLeeway {
		return fmt.Errorf("exp is more than %s ahead", max)
	}
	if c.Iat != nil && exp.Sub(c.Iat.Time) > max {
		return fmt.Errorf("exp - iat is more than %s", max)
	}
	return nil
}

// principal checks the role and its scope: for a patient, that sub is a
// patient id; for a doctor and staff, their doctorId and practiceId.
func (c *claims) principal() (Principal, error) {
	switch c.Role {
	case RoleAdmin, RoleDoctor, RoleStaff:
		return scoped(c.Role, c.Sub, c.DoctorID, c.PracticeID)
	case RolePatient:
		id, err := strconv.ParseInt(c.Sub, 10, 64)
		if err != nil || id <= 0 {
			return Principal{}, gateway.ErrUnauthorized
		}
		return Principal{PatientID: id}, nil
	}
	return Principal{}, gateway.ErrUnauthorized
}

// errNotNumeric refuses a date claim written as a string: RFC 7519 dates
// are JSON numbers, and a lenient reading is one more way to be fooled.
var errNotNumeric = errors.New("exp, iat and nbf must be JSON numbers")
