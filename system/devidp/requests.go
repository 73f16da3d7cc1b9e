package devidp

import (
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// authRequest is one sign-in under way, from the pages' redirect to the
// code exchange: op.AuthRequest.
type authRequest struct {
	id, clientID, redirectURI, state, nonce string
	scopes                                  []string
	responseType                            oidc.ResponseType
	responseMode                            oidc.ResponseMode
	challenge                               *oidc.CodeChallenge
	audience                                string
	subject                                 string
	done                                    bool
	authTime                                time.Time
}

func (a *authRequest) GetID() string       { return a.id }
func (a *authRequest) GetACR() string      { return "" }
func (a *authRequest) GetAMR() []string    { return []string{"user"} }
func (a *authRequest) GetClientID() string { return a.clientID }

// GetAudience names the API beside the client, so that the access token
// is for the gateway (OIDC_AUDIENCE).
func (a *authRequest) GetAudience() []string                 { return []string{a.clientID, a.audience} }
func (a *authRequest) GetAuthTime() time.Time                { return a.authTime }
func (a *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return a.challenge }
func (a *authRequest) GetNonce() string                      { return a.nonce }
func (a *authRequest) GetRedirectURI() string                { return a.redirectURI }
func (a *authRequest) GetResponseType() oidc.ResponseType    { return a.responseType }
func (a *authRequest) GetResponseMode() oidc.ResponseMode    { return a.responseMode }
func (a *authRequest) GetScopes() []string                   { return a.scopes }
func (a *authRequest) GetState() string                      { return a.state }
func (a *authRequest) GetSubject() string                    { return a.subject }
func (a *authRequest) Done() bool                            { return a.done }

// refreshToken is a refresh token and what it renews: op.RefreshTokenRequest.
type refreshToken struct {
	token, subject, clientID string
	audience, scopes         []string
	authTime, until          time.Time
}

func (r *refreshToken) GetAMR() []string            { return []string{"user"} }
func (r *refreshToken) GetAudience() []string       { return r.audience }
func (r *refreshToken) GetAuthTime() time.Time      { return r.authTime }
func (r *refreshToken) GetClientID() string         { return r.clientID }
func (r *refreshToken) GetScopes() []string         { return r.scopes }
func (r *refreshToken) GetSubject() string          { return r.subject }
func (r *refreshToken) SetCurrentScopes(s []string) { r.scopes = s }
