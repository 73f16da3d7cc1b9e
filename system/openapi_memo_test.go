package system_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
