package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
)

// maxDocument bounds a discovery document or key set read from the
// provider: a few keys are a few KiB.
const maxDocument = 1 << 20

// keySet holds the provider's signing keys, fetched from the JWKS URI the
// discovery document names.
type keySet struct {
	cfg Config
	uri func() string
	// store holds the keys; kf picks a token's key from it (kid, alg, use).
	store *missRefresh
	kf    keyfunc.Keyfunc
	// kids are the key ids held, for a cheap check of a remembered token.
	kids    atomic.Pointer[map[string]struct{}]
	fetches atomic.Int64
	// flight makes the tokens that miss while a fetch runs wait for it;
	// unknown allows one such fetch per UnknownKeyEvery.
	flight  singleflight.Group
	mu      sync.Mutex
	unknown *rate.Limiter
}

func newKeySet(cfg Config, uri func() string) *keySet {
	k := &keySet{cfg: cfg, uri: uri, unknown: rate.NewLimiter(rate.Every(cfg.UnknownKeyEvery), 1)}
	k.store = &missRefresh{MemoryJWKSet: jwkset.NewMemoryStorage(), miss: k.refreshUnknown}
	// Keys whose "use" is absent or sig: an encryption key never verifies.
	kf, err := keyfunc.New(keyfunc.Options{Storage: k.store, UseWhitelist: []jwkset.USE{jwkset.UseSig, ""}})
	if err != nil {
		panic(err) // only for a nil storage
	}
	k.kf = kf
	return k
}

func (k *keySet) loaded() bool { return k.kids.Load() != nil }

func (k *keySet) knows(kid string) bool {
	kids := k.kids.Load()
	if kids == nil {
		return false
	}
	_, ok := (*kids)[kid]
	return ok
}

// errNoKid refuses a token without a kid: the key must be named, not
// guessed by trying each.
var errNoKid = errors.New("the token's header names no kid")

// keyfunc gives the jwt parser the key of the token's kid; keyfunc checks
// that the key's alg (when the key names one) is the token's and that it
// is a signing key.
func (k *keySet) keyfunc(t *jwt.Token) (any, error) {
	if kid, ok := t.Header["kid"].(string); !ok || kid == "" {
		return nil, errNoKid
	}
	return k.kf.Keyfunc(t)
}

// missRefresh is the key storage: on a kid it does not hold, it has the key
// set fetched again (within the limit) and looks once more.
type missRefresh struct {
	*jwkset.MemoryJWKSet
	miss func()
}

// KeyRead implements jwkset.Storage.
func (m *missRefresh) KeyRead(ctx context.Context, kid string) (jwkset.JWK, error) {
	jwk, err := m.MemoryJWKSet.KeyRead(ctx, kid)
	if errors.Is(err, jwkset.ErrKeyNotFound) {
		m.miss()
		jwk, err = m.MemoryJWKSet.KeyRead(ctx, kid)
	}
	return jwk, err
}

// refreshUnknown fetches the key set for a token of an unknown kid: at most
// once per UnknownKeyEvery, and every token that misses while that fetch
// runs waits for it instead of starting its own.
func (k *keySet) refreshUnknown() {
	_, _, _ = k.flight.Do("jwks", func() (any, error) {
		k.mu.Lock()
		ok := k.unknown.AllowN(k.cfg.Now(), 1)
		k.mu.Unlock()
		if !ok {
			return nil, nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), defaultHTTPTimeout)
		defer cancel()
		if err := k.fetch(ctx); err != nil {
			k.cfg.Logger.Warn("oidc: fetching the key set for an unknown kid failed; keeping the keys held", "err", err)
		}
		return nil, nil
	})
}

// fetch reads the key set and replaces the keys held, or fails and leaves
// them as they are: keys the libraries cannot read (encryption-only types,
// symmetric keys) and keys without a kid are left out, and a set with no
// key left is a failure, not a reason to refuse every token.
func (k *keySet) fetch(ctx context.Context) error {
	k.fetches.Add(1)
	uri := k.uri()
	if uri == "" {
		return errors.New("the provider's discovery document is not loaded")
	}
	var set jwkset.JWKSMarshal
	if err := getJSON(ctx, k.cfg.Client, uri, &set); err != nil {
		return fmt.Errorf("key set: %w", err)
	}
	keys := make([]jwkset.JWK, 0, len(set.Keys))
	kids := make(map[string]struct{}, len(set.Keys))
	for _, m := range set.Keys {
		jwk, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
		if err != nil || m.KID == "" {
			continue
		}
		keys = append(keys, jwk)
		kids[m.KID] = struct{}{}
	}
	if len(keys) == 0 {
		return fmt.Errorf("key set at %s holds no usable signing key", uri)
	}
	if err := k.store.KeyReplaceAll(ctx, keys); err != nil {
		return err
	}
	k.kids.Store(&kids)
	return nil
}

// getJSON reads a JSON document of at most maxDocument bytes.
func getJSON(ctx context.Context, client *http.Client, url string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxDocument)).Decode(into); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}
