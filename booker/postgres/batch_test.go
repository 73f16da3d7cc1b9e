package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/postgres"
	"termin/migrations/pgtest"
	"termin/shared"
)

// seedFor returns the test's random seed (BATCH_SEED to replay one) and
// prints it when the test fails.
func seedFor(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("BATCH_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random seed %d: rerun with BATCH_SEED=%d", seed, seed)
		}
	})
	return seed
}

// model decides ops one by one, in order: what Decide must reproduce exactly.
type model struct {
	capacity, count map[int64]int
	closed          map[int64]bool
	held            map[[2]int64]bool
	keys            map[string]modelAppt // patient/key → appointment
	appts           map[int64]*modelAppt // appointment id → appointment
	moves           map[string][2]int64  // m/patient/key → appointment, new slot
}

// firstAnswer is the answer to a key's first request in a batch.
type firstAnswer struct {
	booker.Outcome
	slot, appt int64
}

type modelAppt struct {
	id, slot, patient int64
	cancelled         bool
}

func (m *model) decide(op booker.Op, got booker.Outcome, batchFirst map[string]firstAnswer) string {
	if op.Reschedule != nil {
		return m.move(*op.Reschedule, batchFirst)
	}
	if op.Book == nil {
		a := m.appts[op.Cancel]
		switch {
		case a == nil:
			return string(shared.CodeAppointmentNotFound)
		case a.cancelled:
			return "UNCHANGED"
		}
		a.cancelled = true
		m.count[a.slot]--
		delete(m.held, [2]int64{a.slot, a.patient})
		return "CANCELLED"
	}
	req := *op.Book
	k := fmt.Sprintf("%d/%s", req.PatientID, req.IdempotencyKey)
	if a, ok := m.keys[k]; ok {
		if a.slot != req.SlotID {
			return string(shared.CodeIdempotencyKeyReused)
		}
		return fmt.Sprintf("REPLAY %d", a.id)
	}
	if first, ok := batchFirst[k]; ok && first.Err != nil {
		if first.slot != req.SlotID {
			return string(shared.CodeIdempotencyKeyReused)
		}
		return string(shared.CodeOf(first.Err))
	}
	if refused := m.refuse(req.SlotID, req.PatientID); refused != "" {
		return refused
	}
	m.count[req.SlotID]++
	m.held[[2]int64{req.SlotID, req.PatientID}] = true
	a := modelAppt{id: got.Booking.ID, slot: req.SlotID, patient: req.PatientID}
	m.keys[k] = a
	m.appts[a.id] = &a
	return "BOOKED"
}

// refuse is why the slot cannot take the patient, or "".
func (m *model) refuse(slot, patient int64) string {
	switch {
	case m.capacity[slot] == 0:
		return string(shared.CodeSlotNotFound)
	case m.closed[slot]:
		return string(shared.CodeSlotClosed)
	case m.held[[2]int64{slot, patient}]:
		return string(shared.CodeAlreadyBooked)
	case m.count[slot] >= m.capacity[slot]:
		return string(shared.CodeSlotFull)
	}
	return ""
}

// move decides a reschedule one by one: the old place is freed only when the
// new one is taken.
func (m *model) move(req booker.RescheduleRequest, batchFirst map[string]firstAnswer) string {
	k := fmt.Sprintf("m/%d/%s", req.PatientID, req.IdempotencyKey)
	if mv, ok := m.moves[k]; ok {
		if mv != [2]int64{req.AppointmentID, req.SlotID} {
			return string(shared.CodeIdempotencyKeyReused)
		}
		return fmt.Sprintf("MOVED-REPLAY %d", req.AppointmentID)
	}
	if first, ok := batchFirst[k]; ok && first.Err != nil {
		if first.slot != req.SlotID || first.appt != req.AppointmentID {
			return string(shared.CodeIdempotencyKeyReused)
		}
		return string(shared.CodeOf(first.Err))
	}
	a := m.appts[req.AppointmentID]
	switch {
	case a == nil || a.patient != req.PatientID:
		return string(shared.CodeAppointmentNotFound)
	case a.cancelled:
		return string(shared.CodeAppointmentCancelled)
	}
	if refused := m.refuse(req.SlotID, req.PatientID); refused != "" {
		return refused
	}
	m.count[a.slot]--
	delete(m.held, [2]int64{a.slot, a.patient})
	a.slot = req.SlotID
	m.count[a.slot]++
	m.held[[2]int64{a.slot, a.patient}] = true
	m.moves[k] = [2]int64{a.id, a.slot}
	return "MOVED"
}

func describe(o booker.Outcome, op booker.Op) string {
	switch {
	case o.Err != nil:
		return string(shared.CodeOf(o.Err))
	case op.Reschedule != nil && o.Rescheduling.Replay:
		return fmt.Sprintf("MOVED-REPLAY %d", o.Rescheduling.ID)
	case op.Reschedule != nil:
		return "MOVED"
	case op.Book == nil && o.Cancellation.Changed:
		return "CANCELLED"
	case op.Book == nil:
		return "UNCHANGED"
	case o.Booking.Replay:
		return fmt.Sprintf("REPLAY %d", o.Booking.ID)
	}
	return "BOOKED"
}

// randomOps makes a batch: bookings of few patients on few slots (so that keys,
// patients and slots repeat), and cancellations and moves of appointments
// seen so far (owner names the patient of each).
func randomOps(rng *rand.Rand, slots []int64, appts []int64, owner map[int64]int64, n int) []booker.Op {
	ops := make([]booker.Op, n)
	for i := range ops {
		if len(appts) > 0 && rng.IntN(6) == 0 {
			ops[i] = booker.Op{Cancel: appts[rng.IntN(len(appts))]}
			continue
		}
		if len(appts) > 0 && rng.IntN(5) == 0 {
			a := appts[rng.IntN(len(appts))]
			patient := owner[a]
			if rng.IntN(10) == 0 {
				patient = int64(rng.IntN(30) + 1) // often not the owner
			}
			ops[i] = booker.Op{Reschedule: &booker.RescheduleRequest{AppointmentID: a, SlotID: slots[rng.IntN(len(slots))],
				PatientID: patient, IdempotencyKey: fmt.Sprintf("m%d", rng.IntN(10))}}
			continue
		}
		slot := slots[rng.IntN(len(slots))]
		if rng.IntN(20) == 0 {
			slot = 999999 // unknown slot
		}
		ops[i] = booker.Op{Book: &booker.BookRequest{SlotID: slot, PatientID: int64(rng.IntN(30) + 1),
			IdempotencyKey: fmt.Sprintf("k%d", rng.IntN(40))}}
	}
	return ops
}

func randomSlots(t *testing.T, rng *rand.Rand, pool *pgxpool.Pool, m *model) []int64 {
	t.Helper()
	var slots []int64
	for i := range 6 {
		start := future.Add(time.Duration(i) * time.Hour)
		if i == 5 {
			start = testNow.Add(-time.Hour) // started: closed
		}
		capacity := 1 + rng.IntN(4)
		id := pgtest.InsertSlot(t, pool, 42, start, capacity)
		slots = append(slots, id)
		m.capacity[id], m.closed[id] = capacity, i == 5
	}
	return slots
}

func newModel() *model {
	return &model{capacity: map[int64]int{}, count: map[int64]int{}, closed: map[int64]bool{},
		held: map[[2]int64]bool{}, keys: map[string]modelAppt{}, appts: map[int64]*modelAppt{}, moves: map[string][2]int64{}}
}

func TestDecideMatchesOneByOneDecisions(t *testing.T) {
	rng := rand.New(rand.NewPCG(seedFor(t), 1))
	store, pool := newStore(t)
	m := newModel()
	slots := randomSlots(t, rng, pool, m)
	var appts []int64
	owner := map[int64]int64{}
	for batchNo := range 60 {
		ops := randomOps(rng, slots, appts, owner, 1+rng.IntN(25))
		out, err := store.Decide(context.Background(), ops)
		if err != nil {
			t.Fatalf("batch %d: %v", batchNo, err)
		}
		first := map[string]firstAnswer{}
		for i, op := range ops {
			want, got := m.decide(op, out[i], first), describe(out[i], op)
			if want != got {
				t.Fatalf("batch %d op %d (%+v %+v %d): got %s, want %s", batchNo, i, op.Book, op.Reschedule, op.Cancel, got, want)
			}
			if r := op.Reschedule; r != nil {
				k := fmt.Sprintf("m/%d/%s", r.PatientID, r.IdempotencyKey)
				if _, seen := first[k]; !seen {
					first[k] = firstAnswer{out[i], r.SlotID, r.AppointmentID}
				}
			}
			if op.Book != nil {
				k := fmt.Sprintf("%d/%s", op.Book.PatientID, op.Book.IdempotencyKey)
				if _, seen := first[k]; !seen {
					first[k] = firstAnswer{out[i], op.Book.SlotID, 0}
				}
				if got == "BOOKED" {
					appts = append(appts, out[i].Booking.ID)
					owner[out[i].Booking.ID] = op.Book.PatientID
				}
			}
		}
	}
	checkSlots(t, pool)
}

func TestDecideConcurrentWorkersKeepInvariants(t *testing.T) {
	seed := seedFor(t)
	store, pool := newStore(t)
	m := newModel()
	slots := randomSlots(t, rand.New(rand.NewPCG(seed, 2)), pool, m)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(10+w)))
			var appts []int64
			owner := map[int64]int64{}
			for range 40 {
				ops := randomOps(rng, slots, appts, owner, 1+rng.IntN(25))
				out, err := store.Decide(context.Background(), ops)
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				if len(out) != len(ops) {
					t.Errorf("worker %d: %d outcomes for %d ops", w, len(out), len(ops))
				}
				for i, o := range out {
					if o.Err == nil && ops[i].Book != nil && o.Booking.ID == 0 {
						t.Errorf("worker %d: op %d has no answer", w, i)
					}
					if ops[i].Book != nil && o.Err == nil && !o.Booking.Replay {
						appts = append(appts, o.Booking.ID)
						owner[o.Booking.ID] = ops[i].Book.PatientID
					}
				}
			}
		})
	}
	wg.Wait()
	checkSlots(t, pool)
}

// checkSlots holds the invariants: no slot over capacity, and booked_count
// equal to the slot's BOOKED rows.
func checkSlots(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	n := pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot s WHERE booked_count > capacity OR booked_count <>
        (SELECT count(*) FROM appointment a WHERE a.slot_id = s.id AND a.status = 'BOOKED')`)
	if n != 0 {
		t.Errorf("%d slots over capacity or with booked_count unequal to their BOOKED rows", n)
	}
}

var _ booker.BatchService = (*postgres.Store)(nil)
