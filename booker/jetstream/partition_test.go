package jetstream_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"github.com/prometheus/client_golang/prometheus"
	"termin/booker"
	"termin/booker/jetstream"
	"termin/booker/jetstream/members"
	"termin/shared"
	"termin/shared/poll"
)

// TestBookersShareThePartitionsAndTakeOverInOrder: three bookers share the
// partitions; one dies in the middle of a batch, and within 5 s the two
// others hold its partitions and decide its commands first; a fourth joins
// and takes a share. Through all of it no partition is decided by two
// bookers at once, each command is decided once, and each doctor's
// commands in the order the stream holds them.
func TestBookersShareThePartitionsAndTakeOverInOrder(t *testing.T) {
	q := newQueue(t, &fakeDecider{})
	log := &decisionLog{}
	a, b, c := q.startBooker("a", log), q.startBooker("b", log), q.startBooker("c", log)
	waitShared(t, 10*time.Second, a, b, c)

	stop := q.publishSteadily(t)
	time.Sleep(500 * time.Millisecond)
	a.kill()
	died := time.Now()
	waitShared(t, 5*time.Second, b, c)
	t.Logf("the dead booker's partitions moved in %v", time.Since(died).Round(time.Millisecond))

	d := q.startBooker("d", log)
	waitShared(t, 10*time.Second, b, c, d)
	time.Sleep(500 * time.Millisecond)
	published := stop()

	poll.For(t, 20*time.Second, 20*time.Millisecond, func() error {
		if n := log.count(); n < published {
			return fmt.Errorf("%d of %d commands decided", n, published)
		}
		return nil
	})
	log.check(t)
}

// partBooker is one booker of the test: its own connection, members and
// pool, deciding through a decider that logs under its name.
type partBooker struct {
	name   string
	nc     *nats.Conn
	dec    *loggingDecider
	mu     sync.Mutex
	holds  []bool
	cancel context.CancelFunc
}

func (q *queue) startBooker(name string, log *decisionLog) *partBooker {
	q.t.Helper()
	nc, err := nats.Connect(q.nc.ConnectedUrl())
	if err != nil {
		q.t.Fatal(err)
	}
	js, err := natsjs.New(nc)
	if err != nil {
		q.t.Fatal(err)
	}
	parts, kv, err := jetstream.Setup(q.t.Context(), js, q.cfg)
	if err != nil {
		q.t.Fatal(err)
	}
	pb := &partBooker{name: name, nc: nc, dec: &loggingDecider{name: name, log: log, hang: make(chan struct{})}}
	w := &jetstream.Worker{Service: pb.dec, Decisions: kv, JS: js, Conn: nc,
		Metrics: jetstream.NewMetrics(prometheus.NewRegistry()), Log: quiet(), Namespace: q.cfg.Namespace, MaxDeliver: q.cfg.MaxDeliver}
	pool := &jetstream.Pool{Partitions: parts, Worker: w, Members: members.New(nc, q.cfg.Namespace, nuid.Next(), quiet()),
		Size: 1, BatchSize: 20, BatchWait: 5 * time.Millisecond, Log: quiet(), Held: pb.setHolds}
	ctx, cancel := context.WithCancel(context.Background())
	pb.cancel = cancel
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = pool.Run(ctx)
	}()
	q.t.Cleanup(func() {
		pb.dec.unhang()
		cancel()
		<-done
		nc.Close()
	})
	return pb
}

func (pb *partBooker) setHolds(h []bool) {
	pb.mu.Lock()
	pb.holds = slices.Clone(h)
	pb.mu.Unlock()
}

func (pb *partBooker) held() []int {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	var out []int
	for p, h := range pb.holds {
		if h {
			out = append(out, p)
		}
	}
	return out
}

// kill plays a booker that dies in the middle of a batch: its next batch
// never ends, and its connection is gone, so whatever it holds is neither
// decided nor acknowledged.
func (pb *partBooker) kill() {
	pb.dec.dead.Store(true)
	time.Sleep(50 * time.Millisecond) // let a batch run into the hang
	pb.nc.Close()
}

// waitShared waits until the bookers hold every partition between them,
// each one at most once, in shares that differ by one at most.
func waitShared(t *testing.T, within time.Duration, bookers ...*partBooker) {
	t.Helper()
	poll.For(t, within, 20*time.Millisecond, func() error {
		seen := map[int]string{}
		lo, hi := shared.Partitions, 0
		for _, b := range bookers {
			held := b.held()
			lo, hi = min(lo, len(held)), max(hi, len(held))
			for _, p := range held {
				if other, ok := seen[p]; ok {
					return fmt.Errorf("partition %d held by %s and %s", p, other, b.name)
				}
				seen[p] = b.name
			}
		}
		if len(seen) != shared.Partitions || hi-lo > 1 {
			return fmt.Errorf("partitions held %v (shares %d to %d)", seen, lo, hi)
		}
		return nil
	})
}

// publishSteadily books, until the returned function is called, a new
// patient at each of 40 doctors (5 per partition) in turn, each doctor's
// patients numbered in the order they are published; stop returns how
// many it published.
func (q *queue) publishSteadily(t *testing.T) (stop func() int) {
	var doctors []int64
	for p := range shared.Partitions {
		doctors = append(doctors, doctorsOfPartition(p, 5)...)
	}
	var n atomic.Int64
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for patient := int64(1); ; patient++ {
			for _, doc := range doctors {
				select {
				case <-quit:
					return
				default:
				}
				q.book(doc, doc*1000+patient%7, patient, fmt.Sprint("k", doc, "-", patient))
				n.Add(1)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() int {
		close(quit)
		<-done
		return int(n.Load())
	}
}

func doctorsOfPartition(part, n int) []int64 {
	var out []int64
	for d := int64(1); len(out) < n; d++ {
		if shared.Partition(d) == part {
			out = append(out, d)
		}
	}
	return out
}

// loggingDecider decides every booking and logs each batch under its
// booker's name; once its booker is dead it hangs and logs nothing.
type loggingDecider struct {
	name string
	log  *decisionLog
	dead atomic.Bool
	hang chan struct{}
	once sync.Once
}

func (d *loggingDecider) unhang() { d.once.Do(func() { close(d.hang) }) }

// Decide implements booker.BatchService.
func (d *loggingDecider) Decide(_ context.Context, ops []booker.Op) ([]booker.Outcome, error) {
	if d.dead.Load() {
		<-d.hang
		return nil, errDatabaseDown
	}
	began := time.Now()
	time.Sleep(5 * time.Millisecond) // a transaction takes time: overlaps have room to show
	out := make([]booker.Outcome, len(ops))
	for i, op := range ops {
		r := op.Book
		out[i].Booking = booker.Booking{Appointment: booker.Appointment{ID: r.SlotID*1_000_000 + r.PatientID,
			SlotID: r.SlotID, PatientID: r.PatientID, Status: booker.StatusBooked, CreatedAt: time.Now()}, Left: 100}
	}
	d.log.add(d.name, began, time.Now(), ops)
	return out, nil
}

// decisionLog is every batch decided, by booker and time.
type decisionLog struct {
	mu      sync.Mutex
	batches []loggedBatch
}

type loggedBatch struct {
	booker     string
	began, end time.Time
	ops        []booker.Op
}

func (l *decisionLog) add(name string, began, end time.Time, ops []booker.Op) {
	l.mu.Lock()
	l.batches = append(l.batches, loggedBatch{name, began, end, ops})
	l.mu.Unlock()
}

func (l *decisionLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, b := range l.batches {
		n += len(b.ops)
	}
	return n
}

// check wants each command decided once, each doctor's in the order
// published, and no partition decided by two bookers in overlapping batches.
func (l *decisionLog) check(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	slices.SortFunc(l.batches, func(a, b loggedBatch) int { return a.began.Compare(b.began) })
	keys := map[string]bool{}
	last := map[int64]int64{}              // doctor → last patient decided
	busy := map[int]map[string]time.Time{} // partition → booker → end of its latest batch there
	for _, b := range l.batches {
		for _, op := range b.ops {
			r := op.Book
			doctor := r.SlotID / 1000
			if keys[r.IdempotencyKey] {
				t.Errorf("%s decided again by %s", r.IdempotencyKey, b.booker)
			}
			keys[r.IdempotencyKey] = true
			if r.PatientID < last[doctor] {
				t.Errorf("doctor %d: patient %d decided after %d (by %s)", doctor, r.PatientID, last[doctor], b.booker)
			}
			last[doctor] = max(last[doctor], r.PatientID)
			p := shared.Partition(doctor)
			if busy[p] == nil {
				busy[p] = map[string]time.Time{}
			}
			for other, end := range busy[p] {
				if other != b.booker && end.After(b.began) {
					t.Errorf("partition %d decided by %s and %s at once", p, other, b.booker)
				}
			}
			busy[p][b.booker] = b.end
		}
	}
}
