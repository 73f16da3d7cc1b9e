package system_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/poll"
)

// TestBookersScaleOutByPartition runs the deployed shape on loopback: three
// clustered nats-servers (R3, fsync before ack), two gateways and three
// bookers, each booker a process of its own. Mid-burst one booker is
// killed -9: within 5 s the two others hold its partitions. Later a fourth
// joins and takes a share. Nothing may be lost, duplicated or overbooked,
// and each slot goes to the patient who clicked it first: each doctor's
// commands are decided in the order the stream holds them, also those the
// killed booker had in hand.
func TestBookersScaleOutByPartition(t *testing.T) {
	t.Parallel()
	began := time.Now()
	nc := startNATSCluster(t, 3, true)
	db, dbURL := pgtest.Pool(t, 4)
	urls := nc.clientURLs()
	bookers := []*bookerProc{startBookerProc(t, dbURL, urls), startBookerProc(t, dbURL, urls), startBookerProc(t, dbURL, urls)}
	waitPartitionsShared(t, 15*time.Second, bookers...)
	tap := tapBookings(t, urls)
	var gws []*stack
	for range 2 {
		gws = append(gws, &stack{t: t, dbURL: dbURL, db: db, http: &http.Client{Timeout: 10 * time.Second},
			gateway: startGatewayOn(t, dbURL, urls, quietLogger())})
	}
	clients, slots := firstComeClicks(gws[0], 24, 5, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runTimedClicks(gws, clients, slots)
	}()

	time.Sleep(2 * time.Second)
	bookers[0].killWithCommandsInHand(t)
	killed := time.Now()
	waitPartitionsShared(t, 5*time.Second, bookers[1], bookers[2])
	moved := time.Since(killed)
	time.Sleep(time.Second)
	bookers = append(bookers, startBookerProc(t, dbURL, urls))
	waitPartitionsShared(t, 15*time.Second, bookers[1:]...)
	<-done

	gws[0].checkInvariants(t, clients)
	checkStreamOrderWins(t, clients, tap.firsts())
	t.Logf("scale-out: %d clients over %d slots; the killed booker's partitions moved in %v; a fourth took its share; took %v",
		len(clients), len(slots), moved.Round(10*time.Millisecond), time.Since(began).Round(100*time.Millisecond))
}

// bookerProc is bin/booker running as a process of its own.
type bookerProc struct {
	cmd   *exec.Cmd
	admin string
	log   *syncBuffer
}

// startBookerProc starts the booker binary on the database and the NATS
// cluster, with the stream at three replicas, as docker-compose.yml does
// (its batches wait 100 ms for company, so that a killed booker dies with
// commands in hand),
// and waits until it has started: bookers that create a fresh cluster's
// streams all at once can time out, and the test is not about that.
func startBookerProc(t *testing.T, dbURL, natsURL string) *bookerProc {
	t.Helper()
	b := &bookerProc{admin: fmt.Sprintf("127.0.0.1:%d", freePort(t)), log: &syncBuffer{}}
	b.cmd = exec.Command(builtBinary(t, "booker", "termin/booker/cmd/booker"))
	b.cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "NATS_URL="+natsURL, "BOOKER_ADDR="+b.admin,
		"STREAM_REPLICAS=3", "BOOKER_BATCH_WAIT=100ms", "LOG_LEVEL=info", "MIGRATE=1")
	b.cmd.Stdout, b.cmd.Stderr = b.log, b.log
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = b.cmd.Process.Kill()
		_ = b.cmd.Wait()
		if t.Failed() {
			t.Logf("booker on %s logged:\n%s", b.admin, b.log.String())
		}
	})
	poll.For(t, 30*time.Second, 50*time.Millisecond, func() error {
		if !strings.Contains(b.log.String(), `"msg":"booker started"`) {
			return fmt.Errorf("booker on %s not started yet", b.admin)
		}
		return nil
	})
	return b
}

// killWithCommandsInHand stops the booker as a crash would, SIGKILL with
// nothing finished, at a moment when it holds commands it has not
// acknowledged: those must be decided first by the booker taking over.
func (b *bookerProc) killWithCommandsInHand(t *testing.T) {
	t.Helper()
	poll.For(t, 10*time.Second, 5*time.Millisecond, func() error {
		held, inHand, err := b.partitions()
		if err == nil && inHand == 0 {
			err = fmt.Errorf("none of partitions %v has commands in hand", held)
		}
		return err
	})
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = b.cmd.Wait()
}

// held reads the partitions the booker holds from its metrics.
func (b *bookerProc) held() ([]string, error) {
	held, _, err := b.partitions()
	return held, err
}

// partitions reads from the booker's metrics the partitions it holds and
// how many commands they have delivered and not yet acknowledged.
func (b *bookerProc) partitions() (held []string, inHand int, err error) {
	resp, err := http.Get("http://" + b.admin + "/metrics")
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	pending := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, `booker_partition_held{partition="`); ok && strings.HasSuffix(line, "} 1") {
			held = append(held, p[:strings.IndexByte(p, '"')])
		}
		if rest, ok := strings.CutPrefix(line, `booker_stream_ack_pending{consumer="booker-`); ok {
			part, value, _ := strings.Cut(rest, `",stream="BOOKINGS"} `)
			pending[part], _ = strconv.Atoi(value)
		}
	}
	for _, p := range held {
		inHand += pending[p]
	}
	return held, inHand, sc.Err()
}

// waitPartitionsShared waits until the bookers hold every partition
// between them, each once, in shares that differ by one at most.
func waitPartitionsShared(t *testing.T, within time.Duration, bookers ...*bookerProc) {
	t.Helper()
	poll.For(t, within, 50*time.Millisecond, func() error {
		seen := map[string]string{}
		lo, hi := shared.Partitions, 0
		for _, b := range bookers {
			held, err := b.held()
			if err != nil {
				return err
			}
			lo, hi = min(lo, len(held)), max(hi, len(held))
			for _, p := range held {
				if other, ok := seen[p]; ok {
					return fmt.Errorf("partition %s held by %s and %s", p, other, b.admin)
				}
				seen[p] = b.admin
			}
		}
		if len(seen) != shared.Partitions || hi-lo > 1 {
			return fmt.Errorf("partitions held: %v (shares of %d to %d)", seen, lo, hi)
		}
		return nil
	})
}

// firstComeClicks makes, for each of slots capacity-1 slots of each of
// doctors doctors, perSlot clients who click it one after the other;
// order is each slot's clients in the order they click.
func firstComeClicks(s *stack, doctors, slots, perSlot int) ([]*client, map[int64][]*client) {
	order := map[int64][]*client{}
	var clients []*client
	day := s.now().Add(48 * time.Hour).Truncate(time.Hour)
	for d := range doctors {
		for i := range slots {
			slot := s.slot(int64(500+d), day.Add(time.Duration(i)*15*time.Minute), 1)
			for range perSlot {
				c := &client{slot: slot, patient: int64(20000 + len(clients)), key: fmt.Sprintf("scale-%d", len(clients))}
				clients = append(clients, c)
				order[slot] = append(order[slot], c)
			}
		}
	}
	return clients, order
}

// runTimedClicks lets each slot's clients click 80 ms apart, the slots'
// first clicks spread over 6 s, alternating gateways; each client follows
// 202 and 503 until decided.
func runTimedClicks(gws []*stack, clients []*client, order map[int64][]*client) {
	var wg sync.WaitGroup
	start, n := time.Now(), 0
	spread := 6 * time.Second / time.Duration(len(order))
	for _, line := range order {
		base := time.Duration(n) * spread
		n++
		for j, c := range line {
			s := gws[(n+j)%len(gws)]
			wg.Go(func() {
				time.Sleep(time.Until(start.Add(base + time.Duration(j)*80*time.Millisecond)))
				c.first, c.final, c.err = s.bookUntilDecided(c.slot, c.patient, c.key, 60*time.Second)
			})
		}
	}
	wg.Wait()
}

// checkStreamOrderWins wants each slot booked by the patient whose
// command the stream holds first for it, and refused to the others.
func checkStreamOrderWins(t *testing.T, clients []*client, firsts map[int64]int64) {
	t.Helper()
	for _, c := range clients {
		first, ok := firsts[c.slot]
		if !ok {
			t.Errorf("slot %d: no command of it in the stream", c.slot)
			continue
		}
		won := c.final.status == 200 || c.final.status == 201
		if won != (c.patient == first) {
			t.Errorf("slot %d: patient %d answered %d %s; the stream holds patient %d's command first",
				c.slot, c.patient, c.final.status, c.final.code(), first)
		}
	}
}

// bookingTap is every message the booking stream stored, in the stream's
// order, as its republish tap delivers them.
type bookingTap struct {
	mu    sync.Mutex
	order []shared.Command
}

// tapBookings makes the booking stream republish what it stores (the
// bookers keep a tap an operator added) and listens to it.
func tapBookings(t *testing.T, urls string) *bookingTap {
	t.Helper()
	nc, err := nats.Connect(urls)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	tap := &bookingTap{}
	if _, err := nc.Subscribe("tap.>", tap.hear); err != nil {
		t.Fatal(err)
	}
	js, _ := natsjs.New(nc)
	st, err := js.Stream(t.Context(), shared.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	cfg.RePublish = &natsjs.RePublish{Source: shared.DefaultSubjectPrefix + ".>", Destination: "tap." + shared.DefaultSubjectPrefix + ".>"}
	if _, err := js.UpdateStream(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	return tap
}

// hear reads a stored message: a command, or an envelope's commands in turn.
func (tp *bookingTap) hear(m *nats.Msg) {
	var cmds []shared.Command
	var env shared.Envelope
	if strings.HasSuffix(m.Subject, "."+shared.EnvelopeToken) && json.Unmarshal(m.Data, &env) == nil {
		for _, raw := range env.Commands {
			var c shared.Command
			if json.Unmarshal(raw, &c) == nil {
				cmds = append(cmds, c)
			}
		}
	} else {
		var c shared.Command
		if json.Unmarshal(m.Data, &c) == nil {
			cmds = append(cmds, c)
		}
	}
	tp.mu.Lock()
	tp.order = append(tp.order, cmds...)
	tp.mu.Unlock()
}

// firsts is the patient of each slot's first booking in the stream.
func (tp *bookingTap) firsts() map[int64]int64 {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	out := map[int64]int64{}
	for _, c := range tp.order {
		if _, ok := out[c.SlotID]; !ok && c.Kind == shared.KindBook {
			out[c.SlotID] = c.PatientID
		}
	}
	return out
}

var builtBinaries sync.Map // package → *builtBin

type builtBin struct {
	once sync.Once
	path string
	err  error
}

// builtBinary builds a command of the workspace once per test run.
func builtBinary(t *testing.T, name, pkg string) string {
	t.Helper()
	v, _ := builtBinaries.LoadOrStore(pkg, &builtBin{})
	b := v.(*builtBin)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "termin-"+name+"-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, name)
		if out, err := exec.Command("go", "build", "-o", b.path, pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("%v: %s", err, out)
		}
	})
	if b.err != nil {
		t.Fatalf("build %s: %v", pkg, b.err)
	}
	return b.path
}
