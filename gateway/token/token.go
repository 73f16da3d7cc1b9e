// Package token signs the bearer tokens the gateway accepts: HS256 with a
// subject, a role and an expiry. It lives beside the gateway, the tokens'
// one verifier, so that whatever issues them (`make run`'s development
// tokens, the load test's admin token, the system tests) signs exactly what
// the gateway checks, without one of those modules importing another.
package token

import (
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Sign makes an HS256 token for sub and role, issued now and valid for
// lifetime (a negative lifetime makes one already expired, for tests).
func Sign(secret []byte, sub, role string, lifetime time.Duration) (string, error) {
	return SignClaims(secret, jwt.MapClaims{"sub": sub, "role": role}, lifetime)
}

// SignClaims makes an HS256 token of claims (a subject, a role and the
// role's scope: doctorId, practiceId), issued now and valid for lifetime.
func SignClaims(secret []byte, claims jwt.MapClaims, lifetime time.Duration) (string, error) {
	now := time.Now()
	claims["iat"], claims["exp"] = now.Unix(), now.Add(lifetime).Unix()
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}
