package system

import (
	"errors"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// PatientToken signs a bearer token for the patient with the gateway's
// HS256 secret, as the practice's sign-in would: sub the patient id, role
// patient, valid for ttl.
func PatientToken(secret []byte, patient int64, ttl time.Duration) (string, error) {
	if len(secret) == 0 || patient <= 0 {
		return "", errors.New("system: a patient token needs the auth secret and a positive patient id")
	}
	now := time.Now()
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": strconv.FormatInt(patient, 10), "role": "patient", "iat": now.Unix(), "exp": now.Add(ttl).Unix(),
	}).SignedString(secret)
}

// PageLink is the address of the patient page that signs in as the patient:
// the token rides in the fragment, which the browser never sends to a
// server, and the page moves it to its session storage at once.
func PageLink(gatewayURL string, secret []byte, patient int64, ttl time.Duration) (string, error) {
	tok, err := PatientToken(secret, patient, ttl)
	if err != nil {
		return "", err
	}
	return gatewayURL + "/#token=" + tok, nil
}
