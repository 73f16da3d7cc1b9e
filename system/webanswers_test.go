package system_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"termin/gateway/token"
	"termin/gateway/web"
)

// reply is one scripted answer of the API: a status, a Retry-After in
// seconds (0: none) and a JSON body.
type reply struct {
	status, retryAfter int
	body               string
}

func problemReply(status, retryAfter int, code string) reply {
	return reply{status, retryAfter, fmt.Sprintf(`{"type":"about:blank","title":%q,"status":%d,"code":%q}`, code, status, code)}
}

func queued(position, retryAfter int) reply {
	return reply{http.StatusAccepted, retryAfter, fmt.Sprintf(`{"status":"QUEUED","position":%d,"retryAfterSeconds":%d}`, position, retryAfter)}
}

// The scripted doctor and its slots: the one the page books (tomorrow at
// 10:00) and the one it is offered when that is full.
const (
	scriptDoctor = 7
	scriptSlot   = 70
	scriptAlt    = 71
)

// scriptedAPI serves the patient page beside an API whose answers to
// bookings the test hands over one at a time, and whose slot lists, once
// scripted, come from a queue the test fills: the page meets each answer a
// burst can give, in a known order.
type scriptedAPI struct {
	t        *testing.T
	srv      *httptest.Server
	posts    chan reply // the next answer to POST /api/appointments
	scripted atomic.Bool
	mu       sync.Mutex
	lists    []reply  // the next answers to slot lists while scripted; then an empty list
	keys     []string // the Idempotency-Key of every booking request, in order
	asked    []string // the dates of the slot lists asked for while scripted
}

func newScriptedAPI(t *testing.T) *scriptedAPI {
	s := &scriptedAPI{t: t, posts: make(chan reply)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scriptedAPI) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case path == "/" || strings.HasPrefix(path, web.AssetPrefix):
		a, ok := web.Lookup(path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", a.ContentType)
		_, _ = w.Write(a.Body)
	case path == "/api/doctors":
		reply{200, 0, fmt.Sprintf(`{"doctors":[{"id":%d,"name":"Dr. Skript","specialty":"Test"}]}`, scriptDoctor)}.write(w)
	case path == fmt.Sprintf("/api/doctors/%d/slots", scriptDoctor):
		s.list(r.URL.Query().Get("date")).write(w)
	case path == "/api/appointments" && r.Method == http.MethodPost:
		s.mu.Lock()
		s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
		s.mu.Unlock()
		select {
		case rep := <-s.posts:
			rep.write(w)
		case <-r.Context().Done():
		case <-time.After(pageTimeout):
			problemReply(500, 0, "INTERNAL").write(w)
		}
	default:
		problemReply(404, 0, "NOT_FOUND").write(w)
	}
}

// list answers a slot list: the slot to book on its day while not
// scripted, else the next scripted answer.
func (s *scriptedAPI) list(date string) reply {
	if !s.scripted.Load() {
		return slotList(date, scriptSlot, tomorrowAt(10, 0))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, date)
	if len(s.lists) == 0 {
		return slotList(date, 0, time.Time{})
	}
	next := s.lists[0]
	s.lists = s.lists[1:]
	return next
}

// slotList is the doctor's list of a date with the slot on it when it
// starts that day.
func slotList(date string, id int64, start time.Time) reply {
	slots := ""
	if id != 0 && start.In(berlin).Format(time.DateOnly) == date {
		slots = fmt.Sprintf(`{"id":%d,"startAt":%q,"endAt":%q,"capacity":1,"available":1}`,
			id, start.UTC().Format(time.RFC3339), start.Add(15*time.Minute).UTC().Format(time.RFC3339))
	}
	return reply{200, 0, fmt.Sprintf(`{"doctorId":%d,"date":%q,"slots":[%s]}`, scriptDoctor, date, slots)}
}

func (r reply) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	if r.status >= 400 {
		w.Header().Set("Content-Type", "application/problem+json")
	}
	if r.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(r.retryAfter))
	}
	w.WriteHeader(r.status)
	_, _ = w.Write([]byte(r.body))
}

// answer hands the page's next booking request its answer, waiting for the
// page to send it.
func (s *scriptedAPI) answer(t *testing.T, what string, rep reply) {
	t.Helper()
	select {
	case s.posts <- rep:
	case <-time.After(pageTimeout):
		t.Fatalf("%s: the page sent no booking request within %v", what, pageTimeout)
	}
}

// script makes the slot lists from now on answer lists, then empty lists.
func (s *scriptedAPI) script(lists ...reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists, s.asked = lists, nil
	s.scripted.Store(true)
}

// seen is what the API was asked: every booking's key, and the dates of
// the scripted slot lists.
func (s *scriptedAPI) seen() (keys, asked []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.keys), slices.Clone(s.asked)
}

// open signs the patient in on the scripted page and goes to the day of
// the slot to book, the lists not scripted; the keys seen start afresh.
func (s *scriptedAPI) open(t *testing.T, browser context.Context, patient string) *tab {
	t.Helper()
	s.mu.Lock()
	s.keys = nil
	s.mu.Unlock()
	s.scripted.Store(false)
	tok, err := token.Sign([]byte(strings.Repeat("k", 32)), patient, "patient", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p := signedInTab(t, browser, s.srv.URL, "/", tok)
	p.chooseDay(scriptDoctor, tomorrowAt(10, 0))
	p.waitFor("the slot", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, scriptSlot))
	return p
}

// Conditions on the page, as JavaScript.
const (
	inWaitingRoom = `!document.getElementById('v-wait').hidden`
	waitState     = `document.getElementById('wait-state').textContent`
	waitPos       = `document.getElementById('wait-pos').textContent`
	resultCode    = `(!document.getElementById('v-result').hidden && document.getElementById('result-text').dataset.code)`
	resultText    = `document.getElementById('result-text').textContent`
	altsState     = `document.getElementById('alts-box').dataset.state`
	altsText      = `document.getElementById('alts-state').textContent`
)

// TestPageOnEveryBurstAnswer: every answer the opening burst can give a
// booking — 503, 429 with Retry-After, 202 with a position, 409 SLOT_FULL —
// leads the page to a clear message, or to the same request again with the
// same key after Retry-After; a full slot's alternatives are looked for
// again while the server is busy, and a search that cannot be done says so
// rather than "nothing free".
func TestPageOnEveryBurstAnswer(t *testing.T) {
	t.Parallel()
	api := newScriptedAPI(t)
	browser := newBrowser(t)
	tomorrow := tomorrowAt(10, 0).Format(time.DateOnly)

	t.Run("busy, over the limit, queued, then full: one request, one key", func(t *testing.T) {
		p := api.open(t, browser, "501")
		p.book(fmt.Sprintf(`[data-slot="%d"]`, scriptSlot))
		steps := []struct {
			name  string
			reply reply
			want  string
		}{
			{"503: the server is busy, the request kept", problemReply(503, 1, "UNAVAILABLE"),
				inWaitingRoom + ` && ` + waitState + `.includes('Gerade ist viel los') && ` + waitPos + ` === '–'`},
			{"429: too many attempts, the request sent again later", problemReply(429, 1, "RATE_LIMITED"),
				inWaitingRoom + ` && ` + waitState + `.includes('Zu viele Buchungsversuche')`},
			{"202: the position and the wait", queued(5, 1),
				inWaitingRoom + ` && ` + waitPos + ` === '5' && document.getElementById('wait-eta').textContent === 'wenige Sekunden'`},
			{"202 again: the line moves", queued(2, 1),
				waitPos + ` === '2' && document.getElementById('wait-progress').getAttribute('aria-valuenow') === '60'`},
		}
		var key string
		for _, st := range steps {
			api.answer(t, st.name, st.reply)
			p.waitFor(st.name, st.want)
			if key == "" {
				key = p.pendingKey()
			}
		}
		// The full slot: its alternatives are asked for; the first list
		// finds the server busy and is asked for again.
		api.script(problemReply(503, 1, "UNAVAILABLE"), slotList(tomorrow, scriptAlt, tomorrowAt(11, 0)))
		api.answer(t, "409 SLOT_FULL", problemReply(409, 0, "SLOT_FULL"))
		p.waitFor("the full slot's message and its alternative", resultCode+` === 'SLOT_FULL' && `+altsState+` === 'shown' && `+
			fmt.Sprintf(`!!document.querySelector('#alts [data-slot="%d"]')`, scriptAlt))
		if got := eval[string](p, resultText); got != "Dieser Termin ist leider schon vergeben." {
			t.Errorf("the full slot says %q", got)
		}
		keys, asked := api.seen()
		distinct := slices.Compact(slices.Clone(keys))
		if len(keys) != len(steps)+1 || len(distinct) != 1 || distinct[0] != key || !pageKey.MatchString(key) {
			t.Errorf("the page sent keys %v, want %d requests with its one key %q", keys, len(steps)+1, key)
		}
		if len(asked) < 2 || asked[0] != tomorrow || asked[1] != tomorrow {
			t.Errorf("the alternatives' lists asked for %v, want %s twice first (503, then again)", asked, tomorrow)
		}
		if k := p.pendingKey(); k != "" {
			t.Errorf("the page still keeps key %q after the decision", k)
		}
	})

	cases := []struct {
		name  string
		lists []reply
		state string
		text  string
		asked []string
	}{
		{"nothing free in the week", nil, "none", "In den nächsten Tagen ist bei dieser Praxis leider nichts mehr frei.", nil},
		{"the lists cannot be had", slices.Repeat([]reply{problemReply(503, 1, "UNAVAILABLE")}, 4), "failed",
			"Die nächsten freien Termine lassen sich gerade nicht abrufen. Bitte wählen Sie über „Weiteren Termin buchen“ einen anderen Termin.",
			slices.Repeat([]string{tomorrow}, 4)},
	}
	for i, c := range cases {
		t.Run("full slot: "+c.name, func(t *testing.T) {
			p := api.open(t, browser, fmt.Sprint(510+i))
			p.book(fmt.Sprintf(`[data-slot="%d"]`, scriptSlot))
			api.script(c.lists...)
			api.answer(t, "409 SLOT_FULL", problemReply(409, 0, "SLOT_FULL"))
			p.waitFor("the search's end", resultCode+` === 'SLOT_FULL' && `+altsState+` !== 'loading'`)
			state, text := eval[string](p, altsState), eval[string](p, altsText)
			_, asked := api.seen()
			if state != c.state || text != c.text || (c.asked != nil && !slices.Equal(asked, c.asked)) {
				t.Errorf("alternatives %s, %q after asking for %v; want %s, %q", state, text, asked, c.state, c.text)
			}
		})
	}
}
