package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"termin/gateway"
	"termin/gateway/oidc"
	"termin/shared"
)

// Identities finds the patient a provider's person is, making it at the
// person's first sign-in; gateway.People is one (a booker writes the link).
type Identities interface {
	Link(ctx context.Context, id shared.Identity) (patientID int64, err error)
}

// errProviderNotReady answers a provider's token while its keys are not
// loaded: nothing can be said of the token, so the caller tries again.
var errProviderNotReady = fmt.Errorf("%w: the sign-in provider's keys are not loaded yet", gateway.ErrUnavailable)

// rolesByRank are the roles a provider's token may carry, the most
// powerful first: a person with several acts in the first of them it has.
var rolesByRank = []string{RoleAdmin, RoleStaff, RoleDoctor, RolePatient}

// fromProvider verifies a provider's token and says who it names: a doctor,
// staff or an admin by the token's role and scope claims, a patient (also
// a token with none of the four roles) by the patient id of its issuer and
// subject.
func (a *Authenticator) fromProvider(ctx context.Context, token []byte) (Principal, error) {
	c, err := a.provider.Verify(string(token))
	switch {
	case errors.Is(err, oidc.ErrNotReady):
		return Principal{}, errProviderNotReady
	case err != nil:
		return Principal{}, gateway.ErrUnauthorized
	}
	var who Principal
	if role := highestRole(c.Roles); role != RolePatient {
		who, err = scoped(role, c.Subject, c.DoctorID, c.PracticeID)
	} else {
		who.PatientID, err = a.patients.of(ctx, shared.Identity{Issuer: c.Issuer, Subject: c.Subject, Name: c.Name, Email: c.Email})
	}
	if err != nil {
		return Principal{}, err
	}
	until := c.Expiry.Add(oidc.Leeway)
	if who.PatientID > 0 {
		until = minTime(until, a.now().Add(linkTTL))
	}
	a.verified.put(token, verifiedToken{who: who, until: until, kid: c.KeyID})
	return who, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func highestRole(roles []string) string {
	for _, r := range rolesByRank {
		for _, have := range roles {
			if have == r {
				return r
			}
		}
	}
	return RolePatient
}

// scoped is the Principal of an admin, a doctor (of doctorID) or staff (of
// practiceID): a doctor's or staff token without its scope names nobody.
func scoped(role, sub string, doctorID, practiceID int64) (Principal, error) {
	switch {
	case role == RoleAdmin:
		return Principal{Admin: true, Role: RoleAdmin, Sub: sub}, nil
	case sub == "":
		return Principal{}, gateway.ErrUnauthorized
	case role == RoleDoctor && doctorID > 0:
		return Principal{Role: RoleDoctor, Sub: sub, DoctorID: doctorID}, nil
	case role == RoleStaff && practiceID > 0:
		return Principal{Role: RoleStaff, Sub: sub, PracticeID: practiceID}, nil
	}
	return Principal{}, gateway.ErrUnauthorized
}

// patients remembers the patient id of each provider's person seen, for
// linkTTL, so that a renewed token costs no round trip to a booker; the
// first sign-ins of one person at once ask once. The bound in time is for
// an erasure done through another gateway: it ends the link there, and this
// gateway asks again within linkTTL.
type patients struct {
	src    Identities
	now    func() time.Time
	mu     sync.RWMutex
	ids    map[string]linked
	flight singleflight.Group
}

type linked struct {
	patient int64
	until   time.Time
}

// maxPatients bounds the persons remembered; past it they are forgotten,
// which costs each a round trip at its next new token. linkTTL is how long
// a link is remembered.
const (
	maxPatients = 100_000
	linkTTL     = 5 * time.Minute
)

func newPatients(src Identities, now func() time.Time) *patients {
	return &patients{src: src, now: now, ids: map[string]linked{}}
}

func (p *patients) of(ctx context.Context, id shared.Identity) (int64, error) {
	key := id.Issuer + "\x00" + id.Subject
	p.mu.RLock()
	l, ok := p.ids[key]
	p.mu.RUnlock()
	if ok && p.now().Before(l.until) {
		return l.patient, nil
	}
	v, err, _ := p.flight.Do(key, func() (any, error) {
		pid, err := p.src.Link(ctx, id)
		if err != nil {
			return int64(0), err
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.ids) >= maxPatients {
			p.ids = map[string]linked{}
		}
		p.ids[key] = linked{patient: pid, until: p.now().Add(linkTTL)}
		return pid, nil
	})
	return v.(int64), err
}

func (p *patients) forget(patientID int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for key, l := range p.ids {
		if l.patient == patientID {
			delete(p.ids, key)
		}
	}
}
