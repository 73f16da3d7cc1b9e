package generate

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// stats gathers what the report shows, as answers arrive: vegeta's Metrics
// per outcome code and per attack (its t-digest quantiles and rates), the
// time to a click's final decision, and per-second series for the chart.
type stats struct {
	mu       sync.Mutex
	began    time.Time
	codes    map[string]*vegeta.Metrics
	attacks  map[string]*vegeta.Metrics
	decision map[string]*vegeta.LatencyMetrics
	// methods are every answer's latency by method ("POST all", "GET
	// all"), whatever its status: what the budgets bound.
	methods map[string]*answered
	errors  map[string]int
	hist    *vegeta.Histogram
	secs    []*second
}

// answered is the latency of answers of one kind, and their number.
type answered struct {
	lat vegeta.LatencyMetrics
	n   int
}

// second is one second of the run, counted by when requests were due.
type second struct {
	offered                 float64
	sent, answered, decided int
	sentBy                  map[string]int // by attack: clicks, repeats, reads
	booked                  int            // clicks told 201/200, by decision time
	lat                     vegeta.LatencyMetrics
}

// latencyBuckets are the booking latency histogram's bucket bounds.
var latencyBuckets = vegeta.Buckets{0, 5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second}

func newStats(began time.Time) *stats {
	return &stats{began: began, codes: map[string]*vegeta.Metrics{}, attacks: map[string]*vegeta.Metrics{},
		decision: map[string]*vegeta.LatencyMetrics{}, methods: map[string]*answered{}, errors: map[string]int{},
		hist: &vegeta.Histogram{Buckets: latencyBuckets}}
}

// addKind counts one answer once more under a kind of its attack (the
// searches among the reads), for its own latencies, not its own rate line
// in the per-second series.
func (s *stats) addKind(kind string, res *vegeta.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entry(s.attacks, kind).Add(res)
}

// add counts one answer under its attack and its outcome key ("POST 201",
// "POST 409 SLOT_FULL", "GET 200", "POST error"); res.Latency must already
// count from the time the request was due.
func (s *stats) add(attack, method string, res *vegeta.Result, code string) {
	key := method + " " + strconv.Itoa(int(res.Code))
	if res.Code == 0 {
		key = method + " error"
	} else if code != "" {
		key += " " + code
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entry(s.codes, key).Add(res)
	entry(s.attacks, attack).Add(res)
	if res.Code == 0 || res.Code >= 500 {
		s.errors[method+" "+errorText(res)]++
	}
	sec := s.second(res.End().Add(-res.Latency))
	sec.sent++
	if sec.sentBy == nil {
		sec.sentBy = map[string]int{}
	}
	sec.sentBy[attack]++
	if res.Code != 0 {
		s.second(res.End()).answered++
		a := entry(s.methods, method+" all")
		a.n++
		a.lat.Add(res.Latency)
	}
	if method == "POST" {
		sec.lat.Add(res.Latency)
		s.hist.Add(res)
	}
}

// decided counts a click's final decision and the time it took from the
// click's first due time, repeats included.
func (s *stats) decided(c *click) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entry(s.decision, c.outcome()).Add(c.decided.Sub(c.scheduled))
	sec := s.second(c.decided)
	sec.decided++
	if c.status == 200 || c.status == 201 {
		sec.booked++
	}
}

// offer records the offered rate of new clicks during the second of t.
func (s *stats) offer(t time.Time, rate float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.second(t).offered = rate
}

func (s *stats) second(t time.Time) *second {
	i := max(int(t.Sub(s.began)/time.Second), 0)
	for len(s.secs) <= i {
		s.secs = append(s.secs, &second{})
	}
	return s.secs[i]
}

// entry is m's value for key, made when missing.
func entry[T any](m map[string]*T, key string) *T {
	v := m[key]
	if v == nil {
		v = new(T)
		m[key] = v
	}
	return v
}

// errorText names an error without the request's URL, so that equal
// failures of different clicks count as one kind.
func errorText(res *vegeta.Result) string {
	if res.Code != 0 {
		return strconv.Itoa(int(res.Code))
	}
	if i := strings.Index(res.Error, "\": "); i >= 0 {
		return res.Error[i+3:]
	}
	return res.Error
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sentTotal is the number of requests sent, of every attack.
func (s *stats) sentTotal() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.attacks {
		n += int(m.Requests)
	}
	return n
}
