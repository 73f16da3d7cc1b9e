package postgres_test

import (
	"fmt"
	"time"

	"termin/booker"
	"termin/shared"
)

// holdModel decides bookings, holds, longer visits, confirmations,
// cancellations and expiries one by one, in order, as Decide and
// ExpireHolds must.
type holdModel struct {
	slots map[int64]*mSlot
	keys  map[string]*mAppt // patient/key → appointment
	appts map[int64]*mAppt
}

type mSlot struct {
	id, doctor      int64
	start, end      time.Time
	capacity, count int
	closed          bool
}

type mAppt struct {
	id, patient int64
	slots       []int64
	status      booker.Status
	expires     time.Time
	start, end  time.Time
	// body is the request that made it, for replays.
	body firstBody
}

func (m *holdModel) active(patient int64) []*mAppt {
	var out []*mAppt
	for _, a := range m.appts {
		if a.patient == patient && a.status.Active() {
			out = append(out, a)
		}
	}
	return out
}

func (m *holdModel) free(a *mAppt, status booker.Status) {
	a.status = status
	for _, id := range a.slots {
		m.slots[id].count--
	}
}

// chain mirrors the store's: the slot and the doctor's following slots.
func (m *holdModel) chain(first int64, minutes int) ([]*mSlot, shared.Code) {
	f := m.slots[first]
	if f == nil {
		return nil, shared.CodeSlotNotFound
	}
	out := []*mSlot{f}
	if minutes == 0 {
		return out, ""
	}
	length, want := f.end.Sub(f.start), time.Duration(minutes)*time.Minute
	if want < length || want%length != 0 {
		return nil, shared.CodeInvalidRequest
	}
	end := f.start.Add(want)
	for cur := f; cur.end.Before(end); {
		var next *mSlot
		for _, s := range m.slots {
			if s.doctor == cur.doctor && s.start.Equal(cur.end) {
				next = s
			}
		}
		if next == nil {
			return nil, shared.CodeSlotFull
		}
		out, cur = append(out, next), next
	}
	if !out[len(out)-1].end.Equal(end) {
		return nil, shared.CodeInvalidRequest
	}
	return out, ""
}

func (m *holdModel) book(req booker.BookRequest, got booker.Outcome, firsts map[string]firstErr) string {
	k := fmt.Sprintf("%d/%s", req.PatientID, req.IdempotencyKey)
	body := firstBody{slot: req.SlotID, hold: req.Hold, minutes: req.Minutes}
	if a, ok := m.keys[k]; ok {
		if a.body != body {
			return string(shared.CodeIdempotencyKeyReused)
		}
		return fmt.Sprintf("REPLAY %d", a.id)
	}
	if f, ok := firsts[k]; ok && f.err != "" {
		if f.body() != body {
			return string(shared.CodeIdempotencyKeyReused)
		}
		return f.err
	}
	chain, code := m.chain(req.SlotID, req.Minutes)
	if code != "" {
		return string(code)
	}
	if code := m.fits(chain, req.PatientID); code != "" {
		return string(code)
	}
	a := &mAppt{id: got.Booking.ID, patient: req.PatientID, body: body,
		start: chain[0].start, end: chain[len(chain)-1].end, status: booker.StatusBooked}
	for _, s := range chain {
		s.count++
		a.slots = append(a.slots, s.id)
	}
	if req.Hold {
		a.status, a.expires = booker.StatusHeld, got.Booking.ExpiresAt
	}
	m.keys[k], m.appts[a.id] = a, a
	return string(a.status)
}

func (m *holdModel) fits(chain []*mSlot, patient int64) shared.Code {
	for k, s := range chain {
		switch {
		case s.closed:
			return shared.CodeSlotClosed
		case k == 0 && m.holds(s.id, patient):
			return shared.CodeAlreadyBooked
		case s.count >= s.capacity:
			return shared.CodeSlotFull
		}
	}
	lo, hi := chain[0].start, chain[len(chain)-1].end
	for _, a := range m.active(patient) {
		if a.start.Before(hi) && lo.Before(a.end) {
			return shared.CodeOverlappingAppointment
		}
	}
	return ""
}

func (m *holdModel) holds(slot, patient int64) bool {
	for _, a := range m.active(patient) {
		if a.slots[0] == slot {
			return true
		}
	}
	return false
}

func (m *holdModel) confirm(id int64, now time.Time) string {
	a := m.appts[id]
	switch {
	case a == nil:
		return string(shared.CodeAppointmentNotFound)
	case a.status == booker.StatusHeld && a.expires.After(now):
		a.status = booker.StatusBooked
		return "CONFIRMED"
	case a.status == booker.StatusHeld:
		m.free(a, booker.StatusExpired)
		return string(shared.CodeHoldExpired)
	case a.status == booker.StatusBooked:
		return "UNCHANGED"
	}
	return string(shared.CodeHoldExpired)
}

func (m *holdModel) cancel(id int64) string {
	a := m.appts[id]
	switch {
	case a == nil:
		return string(shared.CodeAppointmentNotFound)
	case !a.status.Active():
		return "UNCHANGED"
	}
	m.free(a, booker.StatusCancelled)
	return "CANCELLED"
}

// expire is the expiry job: every hold whose time is up, by id.
func (m *holdModel) expire(now time.Time) map[int64]bool {
	out := map[int64]bool{}
	for _, a := range m.appts {
		if a.status == booker.StatusHeld && !a.expires.After(now) {
			m.free(a, booker.StatusExpired)
			out[a.id] = true
		}
	}
	return out
}

type firstBody struct {
	slot    int64
	hold    bool
	minutes int
}

type firstErr struct {
	firstBody
	err string
}

func (f firstErr) body() firstBody { return f.firstBody }

func describeHold(o booker.Outcome, op booker.Op) string {
	switch {
	case o.Err != nil:
		return string(shared.CodeOf(o.Err))
	case op.Book != nil && o.Booking.Replay:
		return fmt.Sprintf("REPLAY %d", o.Booking.ID)
	case op.Book != nil:
		return string(o.Booking.Status)
	case op.Confirm != 0 && o.Confirmation.Changed:
		return "CONFIRMED"
	case op.Cancel != 0 && o.Cancellation.Changed:
		return "CANCELLED"
	}
	return "UNCHANGED"
}
