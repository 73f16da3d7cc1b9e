package http

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/golang-jwt/jwt/v5"

	"termin/gateway"
)

// The roles a token may carry.
const (
	rolePatient = "patient"
	roleAdmin   = "admin"
)

// principal is who a request acts as: an admin, or one patient.
type principal struct {
	admin     bool
	patientID int64
}

// mayActFor reports whether the caller may book, read or cancel for the
// patient: an admin for anyone, a patient only for itself.
func (p principal) mayActFor(patientID int64) bool {
	return p.admin || p.patientID == patientID
}

// claims are the token's claims the API reads; sub and exp come from the
// registered claims.
type claims struct {
	Role string `json:"role"`
	jwt.RegisteredClaims
}

// authenticator checks bearer tokens. A nil authenticator means
// authentication is off and every caller is an admin.
type authenticator struct {
	secret []byte
	parser *jwt.Parser
}

// newAuthenticator returns nil for an empty secret: no authentication.
func newAuthenticator(secret []byte) *authenticator {
	if len(secret) == 0 {
		return nil
	}
	return &authenticator{
		secret: bytes.Clone(secret),
		parser: jwt.NewParser(jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired()),
	}
}

var bearerPrefix = []byte("bearer ")

// authenticate turns the Authorization header into a principal, or an
// UNAUTHORIZED error that says what is wrong with the token.
func (a *authenticator) authenticate(header []byte) (principal, error) {
	if a == nil {
		return principal{admin: true}, nil
	}
	if len(header) <= len(bearerPrefix) || !bytes.EqualFold(header[:len(bearerPrefix)], bearerPrefix) {
		return principal{}, gateway.ErrUnauthorized
	}
	token := string(bytes.TrimSpace(header[len(bearerPrefix):]))
	var c claims
	if _, err := a.parser.ParseWithClaims(token, &c, a.key); err != nil {
		return principal{}, fmt.Errorf("%w: %v", gateway.ErrUnauthorized, err)
	}
	return c.principal()
}

func (a *authenticator) key(*jwt.Token) (any, error) { return a.secret, nil }

// principal checks the role and, for a patient, that sub is a patient id.
func (c *claims) principal() (principal, error) {
	switch c.Role {
	case roleAdmin:
		return principal{admin: true}, nil
	case rolePatient:
		id, err := strconv.ParseInt(c.Subject, 10, 64)
		if err != nil || id <= 0 {
			return principal{}, fmt.Errorf("%w: sub must be the patient id as a decimal string", gateway.ErrUnauthorized)
		}
		return principal{patientID: id}, nil
	}
	return principal{}, fmt.Errorf("%w: role must be %q or %q", gateway.ErrUnauthorized, rolePatient, roleAdmin)
}

// authorize is nil when who may act for patientID, else FORBIDDEN.
func authorize(who principal, patientID int64) error {
	if who.mayActFor(patientID) {
		return nil
	}
	return gateway.ErrForbidden
}
