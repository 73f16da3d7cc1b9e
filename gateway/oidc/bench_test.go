package oidc_test

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway/oidc/oidctest"
)

// BenchmarkVerify is the check a provider's token costs once, at its first
// click: the signature by each algorithm, the dates, the claims. The
// gateway remembers a checked token (BenchmarkRefusedClick in gateway/http
// has the cost of its later clicks).
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []jwt.SigningMethod{jwt.SigningMethodRS256, jwt.SigningMethodES256, jwt.SigningMethodEdDSA} {
		key := oidctest.NewKey(b, "k", alg)
		p := oidctest.Start(b, key)
		c := newClock()
		v := verifier(b, p, c, nil)
		ready(b, v)
		tok := key.Sign(b, claims(p, c.now()), nil)
		b.Run(alg.Alg(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
