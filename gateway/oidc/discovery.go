package oidc

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Metadata is what the gateway reads of the provider's discovery document:
// where its keys are, and where the pages sign in, renew and sign out.
type Metadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	EndSessionEndpoint    string `json:"end_session_endpoint,omitempty"`
}

// DiscoveryPath is where, below the issuer URL, the discovery document is.
const DiscoveryPath = "/.well-known/openid-configuration"

// Metadata is the provider's discovery document, nil until it is read.
func (v *Verifier) Metadata() *Metadata { return v.meta.Load() }

// BrowserMetadata is the discovery document as a browser would read it, for
// the pages: nil when the gateway reads it at a DiscoveryURL of its own,
// whose endpoints may be addresses only the gateway reaches.
func (v *Verifier) BrowserMetadata() *Metadata {
	if v.cfg.DiscoveryURL != "" {
		return nil
	}
	return v.meta.Load()
}

func (v *Verifier) jwksURI() string {
	if m := v.meta.Load(); m != nil {
		return m.JWKSURI
	}
	return ""
}

// Origins are the provider's origins the pages talk to: the issuer's and,
// once the discovery document is read, the token endpoint's.
func (v *Verifier) Origins() []string {
	out := []string{origin(v.cfg.Issuer)}
	if m := v.BrowserMetadata(); m != nil {
		if o := origin(m.TokenEndpoint); o != "" && o != out[0] {
			out = append(out, o)
		}
	}
	return out
}

// discover reads the discovery document. Its issuer must be the configured
// one, exactly (OpenID Connect Discovery 1.0, section 4.3), so that a
// document served for another issuer does not hand over its keys.
func (v *Verifier) discover(ctx context.Context) error {
	var m Metadata
	url := strings.TrimSuffix(v.cfg.Issuer, "/") + DiscoveryPath
	if v.cfg.DiscoveryURL != "" {
		url = v.cfg.DiscoveryURL
	}
	if err := getJSON(ctx, v.cfg.Client, url, &m); err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	switch {
	case m.Issuer != v.cfg.Issuer:
		return fmt.Errorf("discovery: the document at %s names the issuer %q, not OIDC_ISSUER %q", url, m.Issuer, v.cfg.Issuer)
	case origin(m.JWKSURI) == "":
		return fmt.Errorf("discovery: the document at %s names no jwks_uri", url)
	}
	v.meta.Store(&m)
	return nil
}

// load reads the discovery document (when not yet read) and the key set.
func (v *Verifier) load(ctx context.Context) error {
	if v.meta.Load() == nil {
		if err := v.discover(ctx); err != nil {
			return err
		}
	}
	return v.keys.fetch(ctx)
}

// Run loads the provider's keys, trying again with growing pauses (up to
// 30 s) while the provider cannot be reached, and then fetches them again
// every Refresh, until ctx ends. Until the first load the Verifier is not
// Ready and refuses no token as forged: it cannot check any.
func (v *Verifier) Run(ctx context.Context) {
	wait := 250 * time.Millisecond
	for {
		err := v.loadWithin(ctx)
		if err == nil {
			break
		}
		v.cfg.Logger.Warn("oidc: the provider's keys cannot be loaded; not ready", "issuer", v.cfg.Issuer, "err", err, "retry", wait)
		if !sleep(ctx, wait) {
			return
		}
		wait = min(2*wait, 30*time.Second)
	}
	v.cfg.Logger.Info("oidc: the provider's keys are loaded", "issuer", v.cfg.Issuer)
	for sleep(ctx, v.cfg.Refresh) {
		if err := v.loadWithin(ctx); err != nil {
			v.cfg.Logger.Warn("oidc: fetching the key set failed; keeping the keys held", "err", err)
		}
	}
}

func (v *Verifier) loadWithin(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, defaultHTTPTimeout)
	defer cancel()
	return v.load(ctx)
}

// sleep waits d, or less when ctx ends first (then false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
