// Package people answers the routes of the people around an appointment:
// a patient's own (the profile, the export, the access log, erasure under
// /api/patients/me) and a practice's (a doctor's day, booking for a caller,
// blocking, attendance). It is a package of its own so that these routes and
// their scope checks grow apart from the booking path's server; it takes from
// the server only the ports it calls and two function values, how to answer
// an error and how to give a request its logger.
package people

import (
	"context"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/shared"
)

// Bookings is what the routes put in the queue: a booking for a caller and
// the cancellations of a block or an erasure. gateway.Bookings is one.
type Bookings interface {
	RequestBooking(ctx context.Context, req gateway.BookRequest) (gateway.BookingResult, error)
	RequestCancellation(ctx context.Context, a gateway.Appointment) (queued bool, err error)
}

// Appointments reads appointments by id and by patient. gateway.Reads is one.
type Appointments interface {
	Appointment(ctx context.Context, id int64) (gateway.Appointment, error)
	PatientAppointments(ctx context.Context, patientID int64, limit int) ([]gateway.Appointment, error)
}

// Config is what the routes need from the server. Writes and Reads may be
// nil: the routes then answer 503.
type Config struct {
	Writes       gateway.People
	Reads        gateway.PeopleReads
	Bookings     Bookings
	Appointments Appointments
	// Fail answers an error as a problem; WithLog gives the request its
	// logger with attrs and returns parent carrying it.
	Fail    func(ctx *fasthttp.RequestCtx, err error)
	WithLog func(ctx *fasthttp.RequestCtx, parent context.Context, attrs ...any) context.Context
	// Forget drops what the token checks remember of an erased patient.
	Forget func(patientID int64)
	// Timeout bounds each call into a booker or the database; MaxListed
	// bounds the appointments of a patient read before an erasure.
	Timeout   time.Duration
	MaxListed int
	// Clock says which appointments are still to come; nil is the wall clock.
	Clock shared.Clock
}

// Patients answers a patient's own routes; Practice a doctor's day's.
type (
	Patients struct{ Config }
	Practice struct {
		Config
		patients *Patients
	}
)

// New makes the two handler groups on one configuration.
func New(cfg Config) (*Patients, *Practice) {
	p := &Patients{Config: cfg}
	return p, &Practice{Config: cfg, patients: p}
}

// errNoPeople answers the routes of a server without a people service.
var errNoPeople = fmt.Errorf("%w: no people service is configured", gateway.ErrUnavailable)

func (c *Config) configured() bool { return c.Writes != nil && c.Reads != nil }

func (c *Config) fail(ctx *fasthttp.RequestCtx, err error) { c.Fail(ctx, err) }

func (c *Config) withLog(ctx *fasthttp.RequestCtx, parent context.Context, attrs ...any) context.Context {
	return c.WithLog(ctx, parent, attrs...)
}

// Serve runs f, one of the patient's routes, for a patient's token only.
func (p *Patients) Serve(ctx *fasthttp.RequestCtx, who auth.Principal, f func(*Patients, *fasthttp.RequestCtx, auth.Principal)) {
	switch {
	case !who.IsPatient():
		p.fail(ctx, auth.ErrNotPatient)
	case !p.configured():
		p.fail(ctx, errNoPeople)
	default:
		f(p, ctx, who)
	}
}

// ServeDoctor runs f, one of the practice's routes of the doctor named by
// param, once that doctor is in the token's scope.
func (p *Practice) ServeDoctor(ctx *fasthttp.RequestCtx, who auth.Principal, param []byte,
	f func(*Practice, context.Context, *fasthttp.RequestCtx, auth.Principal, int64)) {
	if !p.configured() {
		p.fail(ctx, errNoPeople)
		return
	}
	doctorID, ok := wire.ParseID(param)
	if !ok {
		p.fail(ctx, wire.Invalid("doctorId must be a positive integer"))
		return
	}
	c, cancel := context.WithTimeout(context.Background(), 2*p.Timeout)
	defer cancel()
	if err := auth.InScope(c, p.Reads, who, doctorID); err != nil {
		p.fail(ctx, err)
		return
	}
	f(p, c, ctx, who, doctorID)
}
