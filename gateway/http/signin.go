package http

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fasthttp"

	"termin/gateway/oidc"
	"termin/gateway/web"
)

// signIn answers the pages' question how to sign in, and widens their
// Content-Security-Policy to the provider's origins, which the pages talk
// to (discovery, the token endpoint for the code and each renewal).
type signIn struct {
	provider *oidc.Verifier
	clientID string
}

func newSignIn(provider *oidc.Verifier, cfg SignIn) signIn {
	if provider == nil || cfg.ClientID == "" {
		return signIn{}
	}
	return signIn{provider: provider, clientID: cfg.ClientID}
}

// signInJSON is the body of web.SignInPath.
type signInJSON struct {
	// Issuer is the provider's issuer URL, "" when the pages take a pasted
	// token instead.
	Issuer   string `json:"issuer"`
	ClientID string `json:"clientId,omitempty"`
	Scope    string `json:"scope,omitempty"`
	// Metadata is the provider's discovery document as the gateway read
	// it, so that the pages need not read it themselves (not every
	// provider lets a page's origin read it).
	Metadata *oidc.Metadata `json:"metadata,omitempty"`
}

// signInScope asks for the profile the new patient is prefilled from and a
// refresh token, with which the pages renew the access token.
const signInScope = "openid profile email offline_access"

func (si signIn) body() []byte {
	out := signInJSON{}
	if si.provider != nil {
		out = signInJSON{Issuer: si.provider.Issuer(), ClientID: si.clientID, Scope: signInScope, Metadata: si.provider.BrowserMetadata()}
	}
	b, _ := json.Marshal(out)
	return append(b, '\n')
}

// csp is the pages' Content-Security-Policy: web's, with the provider's
// origins added where the pages fetch.
func (si signIn) csp() string {
	if si.provider == nil {
		return web.ContentSecurityPolicy
	}
	extra := " " + strings.Join(si.provider.Origins(), " ")
	return strings.Replace(web.ContentSecurityPolicy, "connect-src 'self'", "connect-src 'self'"+extra, 1)
}

// serveSignIn answers web.SignInPath: never cached, since a gateway's
// provider may change with its configuration.
func (s *Server) serveSignIn(ctx *fasthttp.RequestCtx) {
	h := &ctx.Response.Header
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	ctx.SetContentType("application/json")
	ctx.SetBody(s.signIn.body())
}
