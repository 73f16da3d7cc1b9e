package jetstream_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"termin/booker/jetstream"
	"termin/shared"
	"termin/shared/poll"
)

func entries(from, n int) []*jetstream.Entry {
	out := make([]*jetstream.Entry, n)
	for i := range out {
		out[i] = jetstream.NewEntry(shared.Command{Kind: shared.KindBook, SlotID: 1, PatientID: int64(from + i)})
	}
	return out
}

func patients(batch []*jetstream.Entry) []int64 {
	out := make([]int64, len(batch))
	for i, e := range batch {
		out[i] = jetstream.CommandOf(e).PatientID
	}
	return out
}

// TestLaneCutsBatchesInArrivalOrder: a lane hands out at most a batch at a
// time, in the order the commands came, and after Close what is left.
func TestLaneCutsBatchesInArrivalOrder(t *testing.T) {
	l := jetstream.NewLane(3)
	for _, e := range entries(0, 5) {
		l.Push(e)
	}
	l.Close()
	want := [][]int64{{0, 1, 2}, {3, 4}}
	for i, w := range want {
		batch, ok := l.Take(0)
		if got := patients(batch); !ok || fmt.Sprint(got) != fmt.Sprint(w) {
			t.Fatalf("batch %d = %v (ok %v), want %v", i, got, ok, w)
		}
	}
	if batch, ok := l.Take(0); ok || len(batch) != 0 {
		t.Fatalf("a closed, empty lane gave %v, ok %v", patients(batch), ok)
	}
}

// TestLaneWaitsForCompanyOnlyWhenNotFull: an idle worker waits the batch
// wait for more commands to join a short batch, and not at all for a full one.
func TestLaneWaitsForCompanyOnlyWhenNotFull(t *testing.T) {
	l := jetstream.NewLane(3)
	l.Push(entries(0, 1)[0])
	go func() {
		time.Sleep(20 * time.Millisecond) // inside the batch wait below
		for _, e := range entries(1, 2) {
			l.Push(e)
		}
	}()
	batch, ok := l.Take(time.Second)
	if got := patients(batch); !ok || fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("batch after the wait = %v, want the three commands [0 1 2]", got)
	}
	for _, e := range entries(3, 3) {
		l.Push(e)
	}
	start := time.Now()
	if batch, _ := l.Take(time.Hour); len(batch) != 3 || time.Since(start) > 10*time.Second {
		t.Fatalf("a full batch took %v and had %d commands; want it at once", time.Since(start), len(batch))
	}
}

// TestLaneHoldsAtMostTwoBatches: pushing blocks while the lane holds two
// batches, so a slow worker slows the puller instead of growing memory.
func TestLaneHoldsAtMostTwoBatches(t *testing.T) {
	l := jetstream.NewLane(2)
	var pushed atomic.Int64
	go func() {
		for _, e := range entries(0, 6) {
			l.Push(e)
			pushed.Add(1)
		}
	}()
	poll.For(t, 5*time.Second, time.Millisecond, func() error {
		if n := pushed.Load(); n != 4 {
			return fmt.Errorf("%d pushed, want 4 (two batches of 2)", n)
		}
		return nil
	})
	time.Sleep(20 * time.Millisecond) // give a wrongly unblocked push the chance to show
	if n := l.Held(); n != 4 {
		t.Fatalf("the lane holds %d, want 4", n)
	}
	if batch, _ := l.Take(0); fmt.Sprint(patients(batch)) != "[0 1]" {
		t.Fatalf("first batch %v, want [0 1]", patients(batch))
	}
	poll.For(t, 5*time.Second, time.Millisecond, func() error {
		if n := pushed.Load(); n != 6 {
			return fmt.Errorf("%d pushed after a take, want all 6", n)
		}
		return nil
	})
}

// TestLaneOfKeepsASlotOnOneLane: every command of a slot goes to one lane, so
// its commands are decided in stream order; a doctor's slots spread out.
func TestLaneOfKeepsASlotOnOneLane(t *testing.T) {
	const lanes = 4
	used := map[int]bool{}
	for slot := int64(1); slot <= 8; slot++ {
		first := -1
		for patient := int64(1); patient <= 20; patient++ {
			e := jetstream.NewEntry(shared.Command{Kind: shared.KindBook, SlotID: slot, PatientID: patient})
			n := jetstream.LaneOf(e, lanes)
			if n < 0 || n >= lanes {
				t.Fatalf("lane %d of %d", n, lanes)
			}
			if first == -1 {
				first = n
			}
			if n != first {
				t.Fatalf("slot %d: patient %d on lane %d, the slot's first on %d", slot, patient, n, first)
			}
		}
		used[first] = true
	}
	if len(used) != lanes {
		t.Errorf("8 slots used lanes %v; want all %d", used, lanes)
	}
}

// TestLaneWaitsNoLongerThanItsOldestCommand: a command that has already
// waited the batch wait behind the previous batch goes in the next batch at
// once, however short it is: the wait bounds what a command waits for
// company, not what a batch waits after the one before.
func TestLaneWaitsNoLongerThanItsOldestCommand(t *testing.T) {
	var offset atomic.Int64
	l := jetstream.NewLaneWithClock(3, func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
	l.Push(entries(0, 1)[0])
	offset.Store(int64(time.Hour)) // the command has waited an hour behind a batch
	got := make(chan []*jetstream.Entry, 1)
	go func() {
		batch, _ := l.Take(time.Hour)
		got <- batch
	}()
	select {
	case batch := <-got:
		if fmt.Sprint(patients(batch)) != "[0]" {
			t.Fatalf("batch %v, want [0]", patients(batch))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lane still waits for company for a command that has waited its batch wait")
	}
}

// TestLaneWaitsOnlyWhileCompanyIsComing: with nothing more pending in the
// stream, a lone command leaves at once however long the batch wait; while
// more is pending it waits for it, and once the last pending command has
// been pulled (a wake) the short batch leaves without waiting out the rest.
func TestLaneWaitsOnlyWhileCompanyIsComing(t *testing.T) {
	var coming atomic.Bool
	l := jetstream.NewLaneWithCompany(3, coming.Load)
	l.Push(entries(0, 1)[0])
	if batch := takeWithin(t, l, 10*time.Second, "a lone command with no company coming"); fmt.Sprint(patients(batch)) != "[0]" {
		t.Fatalf("batch %v, want [0]", patients(batch))
	}
	coming.Store(true)
	l.Push(entries(1, 1)[0])
	got := make(chan []*jetstream.Entry, 1)
	go func() {
		batch, _ := l.Take(time.Hour)
		got <- batch
	}()
	l.Push(entries(2, 1)[0]) // company came; one more is still pending
	coming.Store(false)      // the last pending command was pulled elsewhere
	l.Wake()
	select {
	case batch := <-got:
		if fmt.Sprint(patients(batch)) != "[1 2]" {
			t.Fatalf("batch %v, want [1 2]", patients(batch))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lane still waits for company after none is coming")
	}
}

// takeWithin takes the lane's next batch with an hour's batch wait and
// fails the test unless it comes within limit.
func takeWithin(t *testing.T, l jetstream.Lane, limit time.Duration, what string) []*jetstream.Entry {
	t.Helper()
	got := make(chan []*jetstream.Entry, 1)
	go func() {
		batch, _ := l.Take(time.Hour)
		got <- batch
	}()
	select {
	case batch := <-got:
		return batch
	case <-time.After(limit):
		t.Fatalf("%s waited for company", what)
		return nil
	}
}
