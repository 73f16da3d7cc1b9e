package devidp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Discovery is the part of a provider's discovery document a client reads.
type Discovery struct {
	Issuer             string   `json:"issuer"`
	Authorization      string   `json:"authorization_endpoint"`
	Token              string   `json:"token_endpoint"`
	EndSession         string   `json:"end_session_endpoint"`
	JWKS               string   `json:"jwks_uri"`
	CodeChallengeTypes []string `json:"code_challenge_methods_supported"`
}

// Discover reads the discovery document of issuer.
func Discover(ctx context.Context, issuer string) (Discovery, error) {
	var d Discovery
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return d, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return d, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return d, fmt.Errorf("discovery: status %d", resp.StatusCode)
	}
	return d, json.NewDecoder(resp.Body).Decode(&d)
}

// Browser signs in at a provider over HTTP as a browser does, for tests
// and tools that have none: it follows the provider's redirects with its
// cookies, submits the sign-in form as subject, and exchanges the code
// with PKCE (S256), through golang.org/x/oauth2.
type Browser struct {
	Discovery Discovery
	OAuth     oauth2.Config
	client    *http.Client
}

// NewBrowser is a browser of the client clientID whose pages are at
// redirectURL.
func NewBrowser(ctx context.Context, issuer, clientID, redirectURL string) (*Browser, error) {
	d, err := Discover(ctx, issuer)
	if err != nil {
		return nil, err
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	b := &Browser{Discovery: d, OAuth: oauth2.Config{ClientID: clientID, RedirectURL: redirectURL,
		Endpoint: oauth2.Endpoint{AuthURL: d.Authorization, TokenURL: d.Token, AuthStyle: oauth2.AuthStyleInParams},
		Scopes:   []string{"openid", "profile", "email", "offline_access"}}}
	b.client = &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(r.URL.String(), redirectURL) {
			return http.ErrUseLastResponse // the pages' address: the code is there
		}
		return nil
	}}
	return b, nil
}

// SignIn signs in as subject and returns the tokens.
func (b *Browser) SignIn(ctx context.Context, subject string) (*oauth2.Token, error) {
	verifier, state := oauth2.GenerateVerifier(), oauth2.GenerateVerifier()
	resp, err := b.get(ctx, b.OAuth.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		return nil, err
	}
	if loc := resp.Header.Get("Location"); loc == "" {
		form := url.Values{"authRequestID": {resp.Request.URL.Query().Get("authRequestID")}, "subject": {subject}}
		if resp, err = b.post(ctx, resp.Request.URL.String(), form); err != nil {
			return nil, err
		}
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || back.Query().Get("state") != state || back.Query().Get("code") == "" {
		return nil, fmt.Errorf("sign-in: the provider sent the browser to %q (status %d), not back with a code", resp.Header.Get("Location"), resp.StatusCode)
	}
	return b.OAuth.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
}

// Renew gets new tokens with the refresh token of t.
func (b *Browser) Renew(ctx context.Context, t *oauth2.Token) (*oauth2.Token, error) {
	old := *t
	old.AccessToken, old.Expiry = "", time.Unix(1, 0) // expired: the source renews
	return b.OAuth.TokenSource(ctx, &old).Token()
}

// SignOut ends the session at the provider, as the pages' "Abmelden" does.
func (b *Browser) SignOut(ctx context.Context, t *oauth2.Token) error {
	idToken, _ := t.Extra("id_token").(string)
	q := url.Values{"id_token_hint": {idToken}, "post_logout_redirect_uri": {b.OAuth.RedirectURL}}
	resp, err := b.get(ctx, b.Discovery.EndSession+"?"+q.Encode())
	if err != nil {
		return err
	}
	if !strings.HasPrefix(resp.Header.Get("Location"), b.OAuth.RedirectURL) {
		return fmt.Errorf("sign-out: status %d, sent to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return nil
}

func (b *Browser) get(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	return b.do(req)
}

func (b *Browser) post(ctx context.Context, u string, form url.Values) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

func (b *Browser) do(req *http.Request) (*http.Response, error) {
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return resp, nil
}
