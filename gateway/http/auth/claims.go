package auth

import (
	"github.com/golang-jwt/jwt/v5"
)

// claims are the token's claims the API reads. It implements jwt.Claims
// itself, rather than embedding jwt.RegisteredClaims, so that its dates are
// read strictly (numbers only).
type claims struct {
	Role string `json:"role"`
	Sub  string `json:"sub"`
	// DoctorID scopes a doctor's token, PracticeID a staff token.
	DoctorID   int64            `json:"doctorId"`
	PracticeID int64            `json:"practiceId"`
	Iss        string           `json:"iss"`
	Aud        jwt.ClaimStrings `json:"aud"`
	Exp        *strictDate      `json:"exp"`
	Iat        *strictDate      `json:"iat"`
	Nbf        *strictDate      `json:"nbf"`
}

// strictDate is a NumericDate that refuses a quoted number.
type strictDate struct{ jwt.NumericDate }

// UnmarshalJSON takes a JSON number only.
func (d *strictDate) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return errNotNumeric
	}
	return d.NumericDate.UnmarshalJSON(b)
}

func (d *strictDate) numeric() *jwt.NumericDate {
	if d == nil {
		return nil
	}
	return &d.NumericDate
}

// GetExpirationTime implements jwt.Claims.
func (c *claims) GetExpirationTime() (*jwt.NumericDate, error) { return c.Exp.numeric(), nil }

// GetIssuedAt implements jwt.Claims.
func (c *claims) GetIssuedAt() (*jwt.NumericDate, error) { return c.Iat.numeric(), nil }

// GetNotBefore implements jwt.Claims.
func (c *claims) GetNotBefore() (*jwt.NumericDate, error) { return c.Nbf.numeric(), nil }

// GetIssuer implements jwt.Claims.
func (c *claims) GetIssuer() (string, error) { return c.Iss, nil }

// GetSubject implements jwt.Claims.
func (c *claims) GetSubject() (string, error) { return c.Sub, nil }

// GetAudience implements jwt.Claims.
func (c *claims) GetAudience() (jwt.ClaimStrings, error) { return c.Aud, nil }
