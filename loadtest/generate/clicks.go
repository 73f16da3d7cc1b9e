package generate

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
	"termin/loadtest/checks"
)

// click is one press of "book" by one patient: one Idempotency-Key, sent
// again with the same key for as long as the server says "not yet" (202, 503
// or no answer), exactly as the contract asks of a real client.
type click struct {
	id        int
	patient   int64
	slot      int64
	key       string
	second    bool      // the impatient patient's second click
	scheduled time.Time // when the first try was due
	due       time.Time // when the try in flight was due
	tries     int
	status    int    // final HTTP status; 0 while undecided
	code      string // problem code of a final refusal
	appt      int64  // appointment told on 201/200
	decided   time.Time
}

// patientState is what a patient remembers between clicks.
type patientState struct {
	booked    bool      // holds a place; a content patient clicks no more
	notBefore time.Time // told to wait by a 429
}

// Ledger is the clients' memory: every click and what each one was told.
// The invariant checks compare it with the database afterwards.
type Ledger struct {
	mu        sync.Mutex
	ids       loadtest.IDs
	clicks    []*click
	patients  map[int64]*patientState
	undecided int
	told      int      // clicks told 201/200
	conflicts []string // answers that contradict an earlier answer for the same key
}

func newLedger(id loadtest.IDs) *Ledger {
	return &Ledger{ids: id, patients: map[int64]*patientState{}}
}

// addLocked records a new click, due at the given time; l.mu is held.
func (l *Ledger) addLocked(patient, slot int64, at time.Time, second bool) *click {
	c := &click{id: len(l.clicks), patient: patient, slot: slot, second: second, scheduled: at, due: at}
	c.key = l.ids.Key(c.id)
	l.clicks = append(l.clicks, c)
	l.undecided++
	return c
}

func (l *Ledger) patient(id int64) *patientState {
	p := l.patients[id]
	if p == nil {
		p = &patientState{}
		l.patients[id] = p
	}
	return p
}

// Clicks is the number of clicks so far; l's lock is held (a workload's
// Click is called with it).
func (l *Ledger) Clicks() int { return len(l.clicks) }

// MayClick reports whether the patient may click now: it neither holds a
// place nor was told by a 429 to wait. l's lock is held.
func (l *Ledger) MayClick(patient int64, now time.Time) bool {
	p := l.patients[patient]
	return p == nil || (!p.booked && !now.Before(p.notBefore))
}

// pending is the number of clicks without a final answer yet.
func (l *Ledger) pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.undecided
}

// counts are the clicks sent, told booked, and still undecided.
func (l *Ledger) counts() (clicks, told, pending int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clicks), l.told, l.undecided
}

// snapshot copies the clicks for the checks and the report.
func (l *Ledger) snapshot() []click {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]click, len(l.clicks))
	for i, c := range l.clicks {
		out[i] = *c
	}
	return out
}

// answer is one response to a booking, as a client reads it.
type answer struct {
	status     int
	code       string
	appt       int64
	retryAfter time.Duration
	end        time.Time
}

func readAnswer(res *vegeta.Result) answer {
	a := answer{status: int(res.Code), end: res.End(), retryAfter: time.Second}
	var body struct {
		ID   int64  `json:"id"`
		Code string `json:"code"`
	}
	if json.Unmarshal(res.Body, &body) == nil {
		a.appt, a.code = body.ID, body.Code
	}
	if secs, err := strconv.Atoi(res.Headers.Get("Retry-After")); err == nil && secs >= 0 {
		a.retryAfter = time.Duration(secs) * time.Second
	}
	return a
}

// settle applies an answer to its click. It returns when to send the same
// request again, if the click is not decided yet.
func (l *Ledger) settle(c *click, a answer) (again time.Time, repeat bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case a.status == 201 || a.status == 200:
		if c.appt != 0 && c.appt != a.appt {
			l.conflicts = append(l.conflicts, c.key)
		}
		if c.appt == 0 {
			l.told++
		}
		c.appt = a.appt
		l.patient(c.patient).booked = true
	case a.status == 429:
		l.patient(c.patient).notBefore = a.end.Add(a.retryAfter)
	case a.status == 202 || a.status == 503:
		return a.end.Add(a.retryAfter), true
	case a.status == 0 || a.status == 408 || a.status >= 500:
		// No answer, or "your request did not arrive in time" (408): repeat
		// the same key, as a client must.
		return a.end.Add(time.Second), true
	}
	c.status, c.code, c.decided = a.status, a.code, a.end
	l.undecided--
	return time.Time{}, false
}

// told is the click as the invariant checks see it: what its client was
// finally told.
func (c *click) told() checks.Click {
	return checks.Click{Patient: c.patient, Slot: c.slot, Key: c.key, Tries: c.tries, Status: c.status, Code: c.code, Appt: c.appt}
}

// outcome names a final answer for the report: "201", "409 SLOT_FULL", ...
func (c *click) outcome() string { return c.told().Outcome() }
