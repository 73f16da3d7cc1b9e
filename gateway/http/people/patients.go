package people

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/valyala/fasthttp"
	"termin/gateway"
	"termin/gateway/http/auth"
	"termin/gateway/http/wire"
	"termin/shared"
)

// MaxProfileBody bounds a profile's body: a few short fields.
const MaxProfileBody = 4096

// GetProfile is GET /api/patients/me: the caller's contact details, or the
// empty profile (German, no consent) of a patient who has none yet.
func (p *Patients) GetProfile(ctx *fasthttp.RequestCtx, who auth.Principal) {
	c, cancel := context.WithTimeout(context.Background(), p.Timeout)
	defer cancel()
	prof, ok, err := p.Reads.Profile(c, who.PatientID)
	if err != nil {
		p.fail(ctx, err)
		return
	}
	if !ok {
		prof = shared.Profile{PatientID: who.PatientID, Language: "de"}
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, meJSON{ID: who.PatientID, Profile: prof})
}

// meJSON is the caller's profile with its patient id as "id": the
// patientId a patient signed in at a provider learns here.
type meJSON struct {
	ID int64 `json:"id"`
	shared.Profile
}

// profileInput is the body of PUT /api/patients/me. The fields the answer
// adds (patientId, consentAt, updatedAt) are taken and ignored, so that a
// client may send back what it read.
type profileInput struct {
	Name      string         `json:"name"`
	Email     string         `json:"email"`
	Phone     string         `json:"phone"`
	Language  string         `json:"language"`
	Insurance string         `json:"insurance"`
	Consent   shared.Consent `json:"consent"`
	PatientID any            `json:"patientId"`
	ConsentAt any            `json:"consentAt"`
	UpdatedAt any            `json:"updatedAt"`
	ID        any            `json:"id"`
}

// PutProfile is PUT /api/patients/me: the caller's contact details and
// consent per channel, checked here and stored by a booker.
func (p *Patients) PutProfile(ctx *fasthttp.RequestCtx, who auth.Principal) {
	in, err := parseProfile(ctx.PostBody())
	if err != nil {
		p.fail(ctx, err)
		return
	}
	prof := shared.Profile{PatientID: who.PatientID, Name: in.Name, Email: in.Email, Phone: in.Phone,
		Language: in.Language, Insurance: in.Insurance, Consent: in.Consent}
	if prof.Language == "" {
		prof.Language = "de"
	}
	if err := shared.ValidProfile(prof); err != nil {
		p.fail(ctx, err)
		return
	}
	c, cancel := context.WithTimeout(context.Background(), p.Timeout)
	defer cancel()
	stored, err := p.Writes.PutProfile(c, prof)
	if err != nil {
		p.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, meJSON{ID: who.PatientID, Profile: stored})
}

func parseProfile(body []byte) (profileInput, error) {
	var in profileInput
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return in, wire.Invalid(`the body must be a JSON object like {"name":"Anna","email":"anna@example.org","language":"de","consent":{"email":true,"sms":false}}`)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, wire.Invalid("the body is not a valid profile: " + err.Error())
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return in, wire.Invalid("the body has data after the profile")
	}
	return in, nil
}

// eraseRounds bounds how often an erasure cancels the caller's upcoming
// appointments and asks again: a booking of the caller's that got in
// between is cancelled in the next round.
const eraseRounds = 3

// Erase is DELETE /api/patients/me: a booker erases the personal data and
// ends the link to the caller's sign-in provider once no upcoming
// appointment is active; those that are are cancelled through the queue
// first, like any cancellation (the place freed once, the gateways told,
// the waitlist offered it). 204 once done.
func (p *Patients) Erase(ctx *fasthttp.RequestCtx, who auth.Principal) {
	c, cancel := context.WithTimeout(context.Background(), 4*p.Timeout)
	defer cancel()
	for round := 0; ; round++ {
		remaining, err := p.Writes.Erase(c, who.PatientID)
		switch {
		case err != nil:
			p.fail(ctx, err)
			return
		case remaining == 0:
			if p.Forget != nil {
				p.Forget(who.PatientID)
			}
			ctx.Response.Header.SetNoDefaultContentType(true)
			ctx.SetStatusCode(fasthttp.StatusNoContent)
			return
		case round == eraseRounds:
			p.fail(ctx, errErasureBusy)
			return
		}
		if err := p.cancelUpcoming(c, who.PatientID); err != nil {
			p.fail(ctx, err)
			return
		}
	}
}

// errErasureBusy answers an erasure whose appointments kept being booked
// while it cancelled them.
var errErasureBusy = fmt.Errorf("%w: appointments are still being cancelled; send the erasure again", gateway.ErrUnavailable)

// cancelUpcoming cancels the patient's active appointments that have not
// started through the queue, and waits for each decision. A refusal (it
// started meanwhile) leaves it a past visit, which erasure keeps.
func (p *Patients) cancelUpcoming(c context.Context, patientID int64) error {
	list, err := p.Appointments.PatientAppointments(c, patientID, p.MaxListed)
	if err != nil {
		return err
	}
	now := p.Clock.Now()
	for _, a := range list {
		if (a.Status != gateway.StatusBooked && a.Status != gateway.StatusHeld) || !a.StartAt.After(now) {
			continue
		}
		queued, err := p.Bookings.RequestCancellation(c, a)
		if err == nil && queued {
			err = p.awaitCancelled(c, a.ID)
		}
		if code := shared.CodeOf(err); err != nil && (code == shared.CodeUnavailable || code == shared.CodeInternal) {
			return err
		}
	}
	return nil
}

// awaitCancelled waits until a queued cancellation is decided.
func (p *Patients) awaitCancelled(c context.Context, id int64) error {
	for {
		a, err := p.Appointments.Appointment(c, id)
		if err != nil || (a.Status != gateway.StatusBooked && a.Status != gateway.StatusHeld) || !a.StartAt.After(p.Clock.Now()) {
			return err
		}
		select {
		case <-c.Done():
			return fmt.Errorf("%w: a cancellation is still queued; send the erasure again", gateway.ErrUnavailable)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// accessEntryJSON is one read of the caller's appointments by someone else.
type accessEntryJSON struct {
	ReaderRole string    `json:"readerRole"`
	ReaderID   string    `json:"readerId"`
	Reason     string    `json:"reason"`
	DoctorID   int64     `json:"doctorId,omitempty"`
	Date       string    `json:"date,omitempty"`
	ReadAt     time.Time `json:"readAt"`
}

func toAccessJSON(list []gateway.AccessEntry) []accessEntryJSON {
	out := make([]accessEntryJSON, 0, len(list))
	for _, e := range list {
		out = append(out, accessEntryJSON{ReaderRole: e.ReaderRole, ReaderID: e.ReaderID, Reason: e.Reason,
			DoctorID: e.DoctorID, Date: e.Day, ReadAt: e.ReadAt.UTC()})
	}
	return out
}

// AccessLog is GET /api/patients/me/access-log: who read the caller's
// appointments, when and why, latest first.
func (p *Patients) AccessLog(ctx *fasthttp.RequestCtx, who auth.Principal) {
	c, cancel := context.WithTimeout(context.Background(), p.Timeout)
	defer cancel()
	list, err := p.Reads.AccessLog(c, who.PatientID)
	if err != nil {
		p.fail(ctx, err)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]any{"entries": toAccessJSON(list)})
}

// exportJSON is everything held about the caller.
type exportJSON struct {
	Profile      *shared.Profile        `json:"profile"`
	Appointments []wire.AppointmentJSON `json:"appointments"`
	Waitlist     []shared.WaitlistEntry `json:"waitlist"`
	Messages     []messageJSON          `json:"messages"`
	AccessLog    []accessEntryJSON      `json:"accessLog"`
}

type messageJSON struct {
	Channel string    `json:"channel"`
	Kind    string    `json:"kind"`
	To      string    `json:"to"`
	SentAt  time.Time `json:"sentAt"`
}

// Export is GET /api/patients/me/export: the caller's data as one JSON
// document (GDPR art. 15 and 20), served as a download.
func (p *Patients) Export(ctx *fasthttp.RequestCtx, who auth.Principal) {
	c, cancel := context.WithTimeout(context.Background(), p.Timeout)
	defer cancel()
	x, err := p.Reads.Export(c, who.PatientID)
	if err != nil {
		p.fail(ctx, err)
		return
	}
	out := exportJSON{Profile: x.Profile, Appointments: make([]wire.AppointmentJSON, 0, len(x.Appointments)),
		Waitlist: x.Waitlist, Messages: make([]messageJSON, 0, len(x.Messages)), AccessLog: toAccessJSON(x.AccessLog)}
	if out.Waitlist == nil {
		out.Waitlist = []shared.WaitlistEntry{}
	}
	for _, a := range x.Appointments {
		out.Appointments = append(out.Appointments, wire.ToAppointmentJSON(a))
	}
	for _, m := range x.Messages {
		out.Messages = append(out.Messages, messageJSON{Channel: m.Channel, Kind: m.Kind, To: m.Address, SentAt: m.SentAt.UTC()})
	}
	ctx.Response.Header.Set("Content-Disposition", `attachment; filename="termin-export.json"`)
	wire.WriteJSON(ctx, fasthttp.StatusOK, out)
}

// LogRead records a read of patients' appointments by an identified doctor,
// staff member or admin before the read is answered; with authentication
// disabled nobody is identified and nothing is recorded. A read whose record
// cannot be written is not answered (UNAVAILABLE).
func (p *Patients) LogRead(c context.Context, who auth.Principal, patients []int64, reason string, doctorID int64, day string) error {
	if who.Role == "" || who.Role == auth.RolePatient || len(patients) == 0 {
		return nil
	}
	if p.Writes == nil {
		return fmt.Errorf("%w: the access log cannot be written", gateway.ErrUnavailable)
	}
	role, id := who.Reader()
	return p.Writes.RecordAccess(c, shared.AccessRecord{PatientIDs: patients, ReaderRole: role, ReaderID: id,
		Reason: reason, DoctorID: doctorID, Date: day})
}
