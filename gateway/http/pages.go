package http

import (
	"encoding/json"
	"sync"
	"termin/gateway/http/wire"
	"time"

	"termin/gateway"
	"termin/shared"
)

// maxPages bounds the rendered slot lists kept; past it the cache starts
// afresh, as the lists' own cache does.
const maxPages = 100_000

// pages keeps the rendered body of each slot list while its slots are the
// ones the list cache hands out: at 07:00 the same few doctors' days are
// read a thousand times a second, and turning 40 slots into JSON each time
// cost as much CPU as every refused click together. A list the cache
// replaced (a booking or cancellation was announced, or its time ran out)
// comes as a new slice and is rendered again; a body also ends when one of
// its slots opens, since a slot not yet open shows its opensAt.
type pages struct {
	mu      sync.Mutex
	entries map[pageKey]page
}

type pageKey struct {
	doctor int64
	day    shared.Date
}

type page struct {
	first *gateway.Slot // identity of the slice rendered
	n     int
	doc   gateway.Doctor
	named bool
	body  []byte
	until time.Time
}

// render returns the list's JSON body, rendered now or kept from before.
func (p *pages) render(doctorID int64, day shared.Date, slots []gateway.Slot, doc gateway.Doctor, named bool, now time.Time) []byte {
	k := pageKey{doctorID, day}
	p.mu.Lock()
	pg, ok := p.entries[k]
	p.mu.Unlock()
	if ok && len(slots) > 0 && pg.first == &slots[0] && pg.n == len(slots) && pg.named == named && pg.doc == doc && now.Before(pg.until) {
		return pg.body
	}
	out := wire.ToSlotsJSON(doctorID, day, slots, now)
	if named {
		out.Doctor = &wire.SlotsDoctorJSON{Name: doc.Name, Specialty: doc.Specialty}
	}
	body, err := json.Marshal(out)
	if err != nil {
		panic(err) // strings and numbers only, as wire.WriteJSON
	}
	body = append(body, '\n')
	if len(slots) > 0 {
		p.keep(k, page{first: &slots[0], n: len(slots), doc: doc, named: named, body: body, until: nextOpening(slots, now)})
	}
	return body
}

func (p *pages) keep(k pageKey, pg page) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.entries == nil || len(p.entries) >= maxPages {
		p.entries = make(map[pageKey]page)
	}
	p.entries[k] = pg
}

// nextOpening is when the first of the slots not yet open opens, or far
// ahead when all are open.
func nextOpening(slots []gateway.Slot, now time.Time) time.Time {
	until := now.Add(24 * time.Hour)
	for _, s := range slots {
		if s.OpensAt.After(now) && s.OpensAt.Before(until) {
			until = s.OpensAt
		}
	}
	return until
}
