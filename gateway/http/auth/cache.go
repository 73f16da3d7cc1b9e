package auth

import (
	"sync"
	"time"

	"termin/gateway/oidc"
)

// verifiedTokens remembers the tokens whose signature and claims were checked,
// until they expire. A browser and a waiting client send the same token with
// every request and repeat: at an opening, checking it again was a quarter of
// the gateway's work per refused click with HS256, and an RS256 check costs
// ten times an HS256 one. Only a token identical to the byte was checked; its
// expiry is checked again on every use, and a provider's token only counts
// while the key that verified it is still among the provider's keys.
type verifiedTokens struct {
	mu      sync.RWMutex
	entries map[string]verifiedToken
}

type verifiedToken struct {
	who   Principal
	until time.Time // exp plus the leeway the parser grants
	// kid is the provider's key that verified the token; "" for HS256.
	kid string
}

// maxVerifiedTokens bounds the memory of verifiedTokens; past it the map is
// cleared, which only costs checking each token once more.
const maxVerifiedTokens = 100_000

func (v *verifiedTokens) get(token []byte, now time.Time, provider *oidc.Verifier) (Principal, bool) {
	v.mu.RLock()
	e, ok := v.entries[string(token)]
	v.mu.RUnlock()
	if !ok || !now.Before(e.until) {
		return Principal{}, false
	}
	if e.kid != "" && !provider.Knows(e.kid) {
		return Principal{}, false
	}
	return e.who, true
}

func (v *verifiedTokens) put(token []byte, e verifiedToken) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.entries == nil || len(v.entries) >= maxVerifiedTokens {
		v.entries = make(map[string]verifiedToken)
	}
	v.entries[string(token)] = e
}

// forget drops the provider's tokens of a patient; tokens signed with the
// secret name their patient themselves and keep naming it.
func (v *verifiedTokens) forget(patientID int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for token, e := range v.entries {
		if e.kid != "" && e.who.PatientID == patientID {
			delete(v.entries, token)
		}
	}
}
