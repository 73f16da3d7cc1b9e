package system_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// matched remembers the answers checkAPI found to match openapi.yaml, so
// that the same answer again is not validated again: a burst's clicks wait
// with repeats answered 202 with the same few bodies thousands of times,
// and kin-openapi compiles the schema anew for each validation. With a
// NATS node cut off, those validations took much of the CPU that the
// gateway and the booker, on the same cores, needed to catch up.
var matched sync.Map // answerKey → struct{}

// maxMatched bounds what matched holds: a burst's answers that recur are
// seen early, and the unique ones (each booking's own 201) need no room.
const maxMatched = 20_000

// matchedCount is how many answers matched holds.
var matchedCount atomic.Int64

// remember notes that the answer of key matched.
func remember(key string) {
	if matchedCount.Load() < maxMatched {
		if _, had := matched.LoadOrStore(key, struct{}{}); !had {
			matchedCount.Add(1)
		}
	}
}

// unchecked are the answer headers the document does not declare and that
// differ from one answer to the next: validation does not read them.
var unchecked = []string{"Date", "X-Request-Id"}

// answerKey is everything the validation of an answer depends on: the
// operation, the request's Accept, the status, the headers but unchecked,
// and the body.
func answerKey(req *http.Request, routePath string, status int, header http.Header, body []byte) string {
	var b strings.Builder
	b.WriteString(req.Method + " " + routePath + " " + req.Header.Get("Accept") + " " + strconv.Itoa(status) + "\n")
	names := make([]string, 0, len(header))
	for name := range header {
		if !slices.Contains(unchecked, http.CanonicalHeaderKey(name)) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		b.WriteString(name + ": " + strings.Join(header.Values(name), ", ") + "\n")
	}
	b.Write(body)
	return b.String()
}

// laterChecks holds the answers of a burst whose timing is measured, to be
// checked against openapi.yaml once it is over: validating each distinct
// answer (every 201 is one) took more of the test process's CPU than the
// gateway's HTTP serving, on the two cores the gateway, the booker and the
// nats-servers need to catch up after a NATS node's cut. Every answer is
// still checked, as checkAPI checks it, only after the clock stops.
type laterChecks struct {
	mu   sync.Mutex
	held map[string]heldAnswer // by answerKey: each distinct answer once
}

// heldAnswer is one answer waiting for its check.
type heldAnswer struct {
	req    *http.Request
	status int
	header http.Header
	body   []byte
}

func newLaterChecks() *laterChecks { return &laterChecks{held: map[string]heldAnswer{}} }

// hold keeps an answer for check, once per distinct answer.
func (l *laterChecks) hold(req *http.Request, status int, header http.Header, body []byte) {
	key := answerKey(req, req.URL.Path, status, header, body)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[key]; !ok {
		l.held[key] = heldAnswer{req, status, header, body}
	}
}

// check checks every answer held so far against openapi.yaml and forgets them.
func (l *laterChecks) check(t testing.TB) {
	t.Helper()
	l.mu.Lock()
	held := l.held
	l.held = map[string]heldAnswer{}
	l.mu.Unlock()
	for _, a := range held {
		checkAPI(t, a.req, a.status, a.header, a.body)
	}
}
