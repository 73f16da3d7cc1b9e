package devidp

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// storage is op.Storage in memory: the pages' client, the auth requests
// under way, their codes, the tokens issued, the sign-in sessions and the
// one RS256 key, made at each start.
type storage struct {
	cfg      Config
	key      signingKey
	sessions *sessions

	mu       sync.Mutex
	requests map[string]*authRequest
	codes    map[string]string
	refresh  map[string]*refreshToken
	// apps are the pages' base URLs (AllowApp) with their redirect URIs.
	origins   map[string]bool
	redirects []string
}

var errNotFound = errors.New("not found")

func newStorage(cfg Config) (*storage, error) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	return &storage{cfg: cfg, key: signingKey{id: randomID(), priv: priv}, sessions: newSessions(),
		requests: map[string]*authRequest{}, codes: map[string]string{}, refresh: map[string]*refreshToken{},
		origins: map[string]bool{}}, nil
}

func (s *storage) allowApp(origin string, redirects []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.origins[origin] = true
	s.redirects = append(s.redirects, redirects...)
}

func (s *storage) allowedOrigin(origin string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.origins[origin]
}

func (s *storage) person(subject string) (Person, bool) {
	i := slices.IndexFunc(s.cfg.People, func(p Person) bool { return p.Subject == subject })
	if i < 0 {
		return Person{}, false
	}
	return s.cfg.People[i], true
}

// CreateAuthRequest implements op.AuthStorage.
func (s *storage) CreateAuthRequest(_ context.Context, r *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	if slices.Contains(r.Prompt, oidc.PromptNone) {
		return nil, oidc.ErrLoginRequired()
	}
	a := &authRequest{id: randomID(), clientID: r.ClientID, redirectURI: r.RedirectURI, state: r.State, nonce: r.Nonce,
		scopes: r.Scopes, responseType: r.ResponseType, responseMode: r.ResponseMode, audience: s.cfg.Audience}
	if r.CodeChallenge != "" {
		a.challenge = &oidc.CodeChallenge{Challenge: r.CodeChallenge, Method: r.CodeChallengeMethod}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[a.id] = a
	return a, nil
}

// complete marks an auth request signed in by subject.
func (s *storage) complete(id, subject string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.requests[id]
	if !ok {
		return errNotFound
	}
	a.subject, a.done, a.authTime = subject, true, time.Now()
	return nil
}

// AuthRequestByID implements op.AuthStorage.
func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.requests[id]; ok {
		return a, nil
	}
	return nil, errNotFound
}

// AuthRequestByCode implements op.AuthStorage.
func (s *storage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	id, ok := s.codes[code]
	s.mu.Unlock()
	if !ok {
		return nil, errNotFound
	}
	return s.AuthRequestByID(ctx, id)
}

// SaveAuthCode implements op.AuthStorage.
func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

// DeleteAuthRequest implements op.AuthStorage: a code is used once.
func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

// CreateAccessToken implements op.AuthStorage; the token is a JWT the op
// package signs, this id its jti.
func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	return randomID(), time.Now().Add(s.cfg.AccessTokenLifetime), nil
}

// CreateAccessAndRefreshTokens implements op.AuthStorage: each renewal
// replaces the refresh token it used (rotation).
func (s *storage) CreateAccessAndRefreshTokens(_ context.Context, r op.TokenRequest, current string) (string, string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt := &refreshToken{token: randomID(), subject: r.GetSubject(), audience: r.GetAudience(), scopes: r.GetScopes(),
		until: time.Now().Add(refreshTokenLifetime)}
	switch req := r.(type) {
	case *authRequest:
		rt.clientID, rt.authTime = req.clientID, req.authTime
	case *refreshToken:
		rt.clientID, rt.authTime = req.clientID, req.authTime
	}
	if current != "" {
		if _, ok := s.refresh[current]; !ok {
			return "", "", time.Time{}, op.ErrInvalidRefreshToken
		}
		delete(s.refresh, current)
	}
	s.refresh[rt.token] = rt
	return randomID(), rt.token, time.Now().Add(s.cfg.AccessTokenLifetime), nil
}

// TokenRequestByRefreshToken implements op.AuthStorage.
func (s *storage) TokenRequestByRefreshToken(_ context.Context, token string) (op.RefreshTokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt, ok := s.refresh[token]
	if !ok || time.Now().After(rt.until) {
		return nil, op.ErrInvalidRefreshToken
	}
	return rt, nil
}

// TerminateSession implements op.AuthStorage: signing out at the provider
// ends the person's sign-in sessions and its refresh tokens, so that the
// pages can neither renew nor sign in again without the form.
func (s *storage) TerminateSession(_ context.Context, subject, _ string) error {
	s.sessions.end(subject)
	s.mu.Lock()
	defer s.mu.Unlock()
	for token, rt := range s.refresh {
		if rt.subject == subject {
			delete(s.refresh, token)
		}
	}
	return nil
}

// RevokeToken implements op.AuthStorage.
func (s *storage) RevokeToken(_ context.Context, token, _, _ string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.refresh, token)
	return nil
}

// GetRefreshTokenInfo implements op.AuthStorage.
func (s *storage) GetRefreshTokenInfo(_ context.Context, _, token string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rt, ok := s.refresh[token]
	if !ok {
		return "", "", op.ErrInvalidRefreshToken
	}
	return rt.subject, rt.token, nil
}

// SigningKey implements op.AuthStorage.
func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return s.key, nil }

// SignatureAlgorithms implements op.AuthStorage.
func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet implements op.AuthStorage: the JWKS.
func (s *storage) KeySet(context.Context) ([]op.Key, error) { return []op.Key{publicKey{s.key}}, nil }

// Health implements op.Storage.
func (s *storage) Health(context.Context) error { return nil }

// randomID is 128 random bits, URL-safe.
func randomID() string { return rand.Text() }
