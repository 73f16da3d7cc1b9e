// Package auth checks the API's bearer tokens (HS256 JWTs with a role and
// its scope) and says what the caller they name may do: act for a patient,
// or see and manage a doctor's days. It is a package of its own, beneath the
// HTTP server, so that every check of who may do what sits in one place that
// the routes ask, and the server keeps to routing and answering.
package auth

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway"
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
)

// Config says how bearer tokens are checked.
type Config struct {
	// Secret is the HS256 key, at least MinSecretLen bytes.
	Secret []byte
	// Disabled turns authentication off: every caller acts as an admin.
	// It must be said explicitly; an empty Secret alone is refused.
	Disabled bool
	// Issuer and Audience, when set, must be the token's iss and one of its aud.
	Issuer, Audience string
	// MaxLifetime bounds exp - iat and exp - now; 0 means DefaultMaxLifetime.
	MaxLifetime time.Duration
}

// ErrNoSecret is New's answer (and so the HTTP server's) to a configuration that neither has a
// usable secret nor disables authentication explicitly.
var ErrNoSecret = fmt.Errorf("AUTH_SECRET must be at least %d bytes (or set AUTH_DISABLED=1 for development)", MinSecretLen)

// Authenticator checks bearer tokens. A nil Authenticator means
// authentication is off and every caller is an admin.
type Authenticator struct {
	secret      []byte
	parser      *jwt.Parser
	maxLifetime time.Duration
	verified    verifiedTokens
}

// verifiedTokens remembers the tokens whose signature and claims were checked,
// until they expire. A browser and a waiting client send the same token with
// every request and repeat: at an opening, checking it again was a quarter of
// the gateway's work per refused click. Only a token identical to the byte
// was checked; its expiry is checked again on every use.
type verifiedTokens struct {
	mu      sync.RWMutex
	entries map[string]verifiedToken
}

type verifiedToken struct {
	who   Principal
	until time.Time // exp plus the leeway the parser grants
}

// maxVerifiedTokens bounds the memory of verifiedTokens; past it the map is
// cleared, which only costs checking each token once more.
const maxVerifiedTokens = 100_000

func (v *verifiedTokens) get(token []byte, now time.Time) (Principal, bool) {
	v.mu.RLock()
	e, ok := v.entries[string(token)]
	v.mu.RUnlock()
	return e.who, ok && now.Before(e.until)
}

func (v *verifiedTokens) put(token []byte, who Principal, until time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.entries == nil || len(v.entries) >= maxVerifiedTokens {
		v.entries = make(map[string]verifiedToken)
	}
	v.entries[string(token)] = verifiedToken{who: who, until: until}
}

// New fails closed: without a secret of MinSecretLen bytes it
// returns an error unless authentication is disabled explicitly.
func New(cfg Config) (*Authenticator, error) {
	if cfg.Disabled {
		return nil, nil
	}
	if len(cfg.Secret) < MinSecretLen {
		return nil, ErrNoSecret
	}
	if cfg.MaxLifetime <= 0 {
		cfg.MaxLifetime = DefaultMaxLifetime
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(), jwt.WithLeeway(authLeeway)}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	return &Authenticator{secret: bytes.Clone(cfg.Secret), parser: jwt.NewParser(opts...), maxLifetime: cfg.MaxLifetime}, nil
}

var bearerPrefix = []byte("bearer ")

// Authenticate turns the Authorization header into a Principal, or an
// UNAUTHORIZED error that says what is wrong with the token.
func (a *Authenticator) Authenticate(header []byte) (Principal, error) {
	if a == nil {
		return Principal{Admin: true}, nil
	}
	if len(header) <= len(bearerPrefix) || !bytes.EqualFold(header[:len(bearerPrefix)], bearerPrefix) {
		return Principal{}, gateway.ErrUnauthorized
	}
	token, now := bytes.TrimSpace(header[len(bearerPrefix):]), time.Now()
	if who, ok := a.verified.get(token, now); ok {
		return who, nil
	}
	c, err := a.parse(token, now)
	if err != nil {
		return Principal{}, err
	}
	who, err := c.principal()
	if err == nil {
		a.verified.put(token, who, c.Exp.Time.Add(authLeeway))
	}
	return who, err
}

// parse checks a token's signature and dates and returns its claims.
func (a *Authenticator) parse(token []byte, now time.Time) (*claims, error) {
	if len(token) > maxTokenLen {
		return nil, fmt.Errorf("%w: the token is too long", gateway.ErrUnauthorized)
	}
	var c claims
	if _, err := a.parser.ParseWithClaims(string(token), &c, a.key); err != nil {
		return nil, fmt.Errorf("%w: %s", gateway.ErrUnauthorized, tokenProblem(err))
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
	case RoleAdmin:
		return Principal{Admin: true, Role: RoleAdmin, Sub: c.Sub}, nil
	case RoleDoctor:
		if c.DoctorID <= 0 || c.Sub == "" {
			return Principal{}, fmt.Errorf("%w: a doctor's token needs sub and a positive doctorId", gateway.ErrUnauthorized)
		}
		return Principal{Role: RoleDoctor, Sub: c.Sub, DoctorID: c.DoctorID}, nil
	case RoleStaff:
		if c.PracticeID <= 0 || c.Sub == "" {
			return Principal{}, fmt.Errorf("%w: a staff token needs sub and a positive practiceId", gateway.ErrUnauthorized)
		}
		return Principal{Role: RoleStaff, Sub: c.Sub, PracticeID: c.PracticeID}, nil
	case RolePatient:
		id, err := strconv.ParseInt(c.Sub, 10, 64)
		if err != nil || id <= 0 {
			return Principal{}, fmt.Errorf("%w: sub must be the patient id as a decimal string", gateway.ErrUnauthorized)
		}
		return Principal{PatientID: id}, nil
	}
	return Principal{}, fmt.Errorf("%w: role must be %q, %q, %q or %q", gateway.ErrUnauthorized,
		RolePatient, RoleDoctor, RoleStaff, RoleAdmin)
}

// tokenProblem says what is wrong with a token in words of its own: the
// parser's messages may quote the token's bytes back.
func tokenProblem(err error) string {
	for _, p := range []struct {
		err  error
		text string
	}{
		{jwt.ErrTokenExpired, "the token has expired"},
		{jwt.ErrTokenUsedBeforeIssued, "the token's iat is in the future"},
		{jwt.ErrTokenNotValidYet, "the token is not valid yet"},
		{jwt.ErrTokenInvalidIssuer, "the token's iss is not the expected issuer"},
		{jwt.ErrTokenInvalidAudience, "the token's aud does not name this service"},
		{jwt.ErrTokenRequiredClaimMissing, "the token lacks a required claim (exp, iss or aud)"},
		{jwt.ErrTokenSignatureInvalid, "the token's signature is invalid or not HS256"},
		{jwt.ErrTokenUnverifiable, "the token's signature is invalid or not HS256"},
	} {
		if errors.Is(err, p.err) {
			return p.text
		}
	}
	return "the token is malformed"
}

// errNotNumeric refuses a date claim written as a string: RFC 7519 dates
// are JSON numbers, and a lenient reading is one more way to be fooled.
var errNotNumeric = errors.New("exp, iat and nbf must be JSON numbers")
