package generate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"termin/loadtest"
)

// requestTimeout bounds every request: the contract promises an answer
// within seconds ("never a hang"), so a longer wait is an error, and the
// click is repeated with the same key.
const requestTimeout = 10 * time.Second

// Workload chooses who clicks on which slot, and which slot lists are read.
// click is called with the ledger locked, so it may read patients' states.
type Workload interface {
	Click(rng *rand.Rand, l *Ledger, now time.Time) (patient, slot int64)
	Read(rng *rand.Rand) string
}

// Engine drives a run's three vegeta attacks: new clicks at the scenario's
// pace, repeats at the times the server asked for, and slot-list reads.
type Engine struct {
	opts       loadtest.Options
	load       Workload
	ledger     *Ledger
	sched      *schedule
	stats      *stats
	rng        *rand.Rand // guarded by ledger.mu
	readRng    *rand.Rand
	readMu     sync.Mutex
	clicksDone atomic.Bool
	cancelled  atomic.Bool
	deadline   atomic.Int64 // unix nanoseconds; the end of the follow-up
	// clicks, repeats and reads send the three streams, each over its own
	// connections.
	clicks, repeats, reads client
}

// New builds the engine of one run: its clients, its ledger of clicks and
// its random choices, all seeded from the options.
func New(o loadtest.Options, load Workload, id loadtest.IDs) *Engine {
	e := &Engine{opts: o, load: load, ledger: newLedger(id),
		rng:     rand.New(rand.NewPCG(uint64(o.Seed), 1)),
		readRng: rand.New(rand.NewPCG(uint64(o.Seed), 2))}
	e.sched = newSchedule(e.quit)
	e.clicks, e.repeats, e.reads = newClient(o.Conns), newClient(o.Conns), newClient(min(o.Conns, 2_000))
	return e
}

// quit tells the repeats' pacer to stop: on cancellation, or after the last
// new click once every click is decided or the follow-up time is over.
func (e *Engine) quit() bool {
	if e.cancelled.Load() {
		return true
	}
	if !e.clicksDone.Load() {
		return false
	}
	return e.ledger.pending() == 0 || time.Now().UnixNano() > e.deadline.Load()
}

// Run sends the load with the given pacer for new clicks and returns once
// every click is decided, the follow-up is over, or ctx is cancelled.
func (e *Engine) Run(ctx context.Context, pacer vegeta.Pacer) {
	clicks, repeats, reads := e.clicks.attacker, e.repeats.attacker, e.reads.attacker
	stop := context.AfterFunc(ctx, func() {
		e.cancelled.Store(true)
		clicks.Stop()
		reads.Stop()
	})
	defer stop()
	e.stats = newStats(time.Now())
	watch := e.watch(pacer)
	var first, rest sync.WaitGroup
	first.Go(func() { e.consume("clicks", clicks.Attack(e.newClick, pacer, e.opts.Duration, "clicks")) })
	rest.Go(func() { e.consume("repeats", repeats.Attack(e.repeat, e.sched, 0, "repeats")) })
	if e.opts.ReadsRate > 0 {
		rp := vegeta.ConstantPacer{Freq: max(int(e.opts.ReadsRate+0.5), 1), Per: time.Second}
		rest.Go(func() { e.consume("reads", reads.Attack(e.newRead, rp, e.opts.Duration, "reads")) })
	}
	first.Wait()
	e.deadline.Store(time.Now().Add(e.opts.FollowUp).UnixNano())
	e.clicksDone.Store(true)
	reads.Stop()
	rest.Wait()
	watch()
}

// ClicksDone reports whether the last new click has been sent.
func (e *Engine) ClicksDone() bool { return e.clicksDone.Load() }

// client is an attacker and the HTTP client it sends with, whose
// connections warm opens before the first click.
type client struct {
	attacker *vegeta.Attacker
	http     *http.Client
}

func newClient(conns int) client {
	c := &http.Client{Timeout: requestTimeout, Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
		DialContext: (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
	}}
	return client{http: c, attacker: vegeta.NewAttacker(vegeta.Client(c), vegeta.MaxBody(64<<10), vegeta.Redirects(vegeta.NoFollow))}
}

// newClick is the targeter of new clicks. One in Impatient of them is
// followed by a second click of the same patient on the same slot, with a
// new key, as an impatient patient double-clicks.
func (e *Engine) newClick(tgt *vegeta.Target) error {
	now := time.Now()
	e.ledger.mu.Lock()
	p, s := e.load.Click(e.rng, e.ledger, now)
	c := e.ledger.addLocked(p, s, now, false)
	var twin *click
	if e.rng.Float64() < e.opts.Impatient {
		at := now.Add(300*time.Millisecond + time.Duration(e.rng.Int64N(int64(1200*time.Millisecond))))
		twin = e.ledger.addLocked(p, s, at, true)
	}
	e.ledger.mu.Unlock()
	if twin != nil {
		e.sched.add(twin, twin.scheduled)
	}
	e.booking(tgt, c)
	return nil
}

// repeat is the targeter of the schedule: the click that fell due.
func (e *Engine) repeat(tgt *vegeta.Target) error {
	e.booking(tgt, e.sched.next())
	return nil
}

// booking fills a target for the click. The click's id travels in the URL's
// fragment, which is never sent but comes back in vegeta's result.
func (e *Engine) booking(tgt *vegeta.Target, c *click) {
	c.tries++
	tgt.Method = http.MethodPost
	tgt.URL = e.opts.GatewayURL + "/api/appointments#" + strconv.Itoa(c.id)
	tgt.Body = fmt.Appendf(nil, `{"slotId":%d,"patientId":%d}`, c.slot, c.patient)
	tgt.Header = http.Header{"Idempotency-Key": {c.key}, "Content-Type": {"application/json"}}
	if e.opts.AuthToken != "" {
		tgt.Header.Set("Authorization", "Bearer "+e.opts.AuthToken)
	}
}

func (e *Engine) newRead(tgt *vegeta.Target) error {
	e.readMu.Lock()
	path := e.load.Read(e.readRng)
	e.readMu.Unlock()
	tgt.Method, tgt.URL = http.MethodGet, e.opts.GatewayURL+path
	if e.opts.AuthToken != "" {
		tgt.Header = http.Header{"Authorization": {"Bearer " + e.opts.AuthToken}}
	}
	return nil
}

func (e *Engine) consume(attack string, results <-chan *vegeta.Result) {
	for res := range results {
		if attack == "reads" {
			code := ""
			if res.Code >= 400 {
				code = readAnswer(res).code
			}
			e.stats.add(attack, http.MethodGet, res, code)
			if isSearch(res.URL) {
				e.stats.addKind("searches", res)
			}
			if since := res.Timestamp.Sub(e.stats.began); e.opts.BurstAfter > 0 &&
				since >= e.opts.BurstAfter && since < e.opts.BurstAfter+e.opts.BurstFor {
				e.stats.addKind(BurstReads, res)
			}
			continue
		}
		e.answered(attack, res)
	}
}

// BurstReads names the reads sent while the day's burst ran.
const BurstReads = "reads during the burst"

// isSearch tells a search (GET /api/doctors?…) from a slot list.
func isSearch(url string) bool { return strings.Contains(url, "/api/doctors?") }

// answered applies one booking answer: latency from the time the try was
// due, the click settled, and its repeat scheduled if it is not decided.
func (e *Engine) answered(attack string, res *vegeta.Result) {
	c := e.clickOf(res.URL)
	if c == nil {
		e.stats.add(attack, http.MethodPost, res, "")
		return
	}
	if attack == "clicks" {
		c.scheduled, c.due = res.Timestamp, res.Timestamp
	} else {
		end := res.End()
		res.Timestamp, res.Latency = c.due, end.Sub(c.due)
	}
	a := readAnswer(res)
	e.stats.add(attack, http.MethodPost, res, a.code)
	if again, repeat := e.ledger.settle(c, a); repeat {
		e.sched.add(c, again)
		return
	}
	e.stats.decided(c)
}

func (e *Engine) clickOf(url string) *click {
	i := strings.LastIndexByte(url, '#')
	id, err := strconv.Atoi(url[i+1:])
	if i < 0 || err != nil {
		return nil
	}
	e.ledger.mu.Lock()
	defer e.ledger.mu.Unlock()
	if id >= len(e.ledger.clicks) {
		return nil
	}
	return e.ledger.clicks[id]
}
