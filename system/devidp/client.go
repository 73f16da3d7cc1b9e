package devidp

import (
	"context"
	"crypto/rsa"
	"errors"
	"slices"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// client is the pages' public client: a browser application that signs in
// with Authorization Code and PKCE, gets JWT access tokens and renews them
// with a refresh token.
type client struct {
	id        string
	redirects []string
}

// GetClientByClientID implements op.OPStorage.
func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if id != s.cfg.ClientID {
		return nil, errNotFound
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return client{id: id, redirects: slices.Clone(s.redirects)}, nil
}

// AuthorizeClientIDSecret implements op.OPStorage: the pages' client has
// no secret to give.
func (s *storage) AuthorizeClientIDSecret(context.Context, string, string) error {
	return errors.New("the client is public; it has no secret")
}

func (c client) GetID() string                       { return c.id }
func (c client) RedirectURIs() []string              { return c.redirects }
func (c client) PostLogoutRedirectURIs() []string    { return c.redirects }
func (c client) ApplicationType() op.ApplicationType { return op.ApplicationTypeUserAgent }
func (c client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodNone }
func (c client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c client) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}
func (c client) LoginURL(id string) string           { return loginPath + "?authRequestID=" + id }
func (c client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (c client) IDTokenLifetime() time.Duration      { return time.Hour }

// DevMode lets the client's addresses be plain http on loopback, as
// `make run`'s gateway is.
func (c client) DevMode() bool                                                { return true }
func (c client) RestrictAdditionalIdTokenScopes() func([]string) []string     { return keep }
func (c client) RestrictAdditionalAccessTokenScopes() func([]string) []string { return keep }
func (c client) IsScopeAllowed(string) bool                                   { return false }
func (c client) IDTokenUserinfoClaimsAssertion() bool                         { return false }
func (c client) ClockSkew() time.Duration                                     { return 0 }

func keep(scopes []string) []string { return scopes }

// SetUserinfoFromScopes implements op.OPStorage (deprecated there; the
// request's own method below fills the userinfo).
func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's profile claims.
func (s *storage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, r op.IDTokenRequest, scopes []string) error {
	return s.userinfo(info, r.GetSubject(), scopes)
}

// SetUserinfoFromToken implements op.OPStorage: the userinfo endpoint.
func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, _, subject, _ string) error {
	return s.userinfo(info, subject, []string{oidc.ScopeOpenID, oidc.ScopeProfile, oidc.ScopeEmail})
}

func (s *storage) userinfo(info *oidc.UserInfo, subject string, scopes []string) error {
	p, ok := s.person(subject)
	if !ok {
		return errNotFound
	}
	info.Subject = p.Subject
	if slices.Contains(scopes, oidc.ScopeProfile) {
		info.Name = p.Name
	}
	if slices.Contains(scopes, oidc.ScopeEmail) && p.Email != "" {
		info.Email, info.EmailVerified = p.Email, true
	}
	return nil
}

// SetIntrospectionFromToken implements op.OPStorage; the gateway verifies
// the JWT itself and never introspects.
func (s *storage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return errors.New("introspection is not offered")
}

// GetPrivateClaimsFromScopes puts a person's roles, scope and profile into
// its access token, as a provider's role and attribute mappers do.
func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, subject, _ string, _ []string) (map[string]any, error) {
	p, ok := s.person(subject)
	if !ok {
		return nil, errNotFound
	}
	claims := map[string]any{"roles": p.Roles, "name": p.Name}
	if p.Email != "" {
		claims["email"] = p.Email
	}
	if p.DoctorID > 0 {
		claims["doctorId"] = p.DoctorID
	}
	if p.PracticeID > 0 {
		claims["practiceId"] = p.PracticeID
	}
	return claims, nil
}

// GetKeyByIDAndClientID implements op.OPStorage; no JWT profile grant.
func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errNotFound
}

// ValidateJWTProfileScopes implements op.OPStorage; no JWT profile grant.
func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errNotFound
}

// signingKey is the provider's RS256 key.
type signingKey struct {
	id   string
	priv *rsa.PrivateKey
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.priv }
func (k signingKey) ID() string                                  { return k.id }

// publicKey is the signing key as the JWKS lists it.
type publicKey struct{ signingKey }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.priv.PublicKey }
