package room_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/shared"
	"termin/shared/poll"
)

// memPlaces is the gateways' record of places in memory: one lock makes each
// operation atomic, as the KV bucket's compare-and-set does.
type memPlaces struct {
	mu      sync.Mutex
	rev     uint64
	places  map[[3]int64]gateway.Place
	decided map[string]bool // patient.key
}

func newMemPlaces() *memPlaces {
	return &memPlaces{places: map[[3]int64]gateway.Place{}, decided: map[string]bool{}}
}

func placeOf(p gateway.Place) [3]int64 { return [3]int64{p.Doctor, p.OpensAt, p.Patient} }

func (m *memPlaces) Claim(_ context.Context, p gateway.Place) (gateway.Place, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.places[placeOf(p)]; ok {
		return held, nil
	}
	m.rev++
	p.Rev = m.rev
	m.places[placeOf(p)] = p
	return p, nil
}

func (m *memPlaces) Replace(ctx context.Context, p gateway.Place, rev uint64) (gateway.Place, error) {
	m.mu.Lock()
	if held, ok := m.places[placeOf(p)]; ok && held.Rev == rev {
		m.rev++
		p.Rev = m.rev
		m.places[placeOf(p)] = p
		m.mu.Unlock()
		return p, nil
	}
	m.mu.Unlock()
	return m.Claim(ctx, p)
}

func (m *memPlaces) Release(_ context.Context, p gateway.Place) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if held, ok := m.places[placeOf(p)]; ok && held.Rev == p.Rev {
		delete(m.places, placeOf(p))
	}
	return nil
}

func (m *memPlaces) Decided(_ context.Context, p gateway.Place) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.decided[fmt.Sprint(p.Patient, ".", p.Key)], nil
}

func (m *memPlaces) holder(patient int64) (gateway.Place, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, p := range m.places {
		if k[2] == patient {
			return p, true
		}
	}
	return gateway.Place{}, false
}

// TestKeysAtTwoRoomsAtOnceHoldOnePlace: a patient's two keys reach two
// gateways at the same instant, in an opening that has opened (so a place is
// admitted at once), for many patients at once: each patient's keys hold one
// place, the other follows it, and one command per patient reaches the queue.
func TestKeysAtTwoRoomsAtOnceHoldOnePlace(t *testing.T) {
	opened := time.Now().Add(-time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opened.Add(24 * time.Hour), Capacity: 1000, OpensAt: opened}
	record := newMemPlaces()
	cfg := gateway.DefaultRoomConfig()
	cfg.Margin = 1000
	a, qa := newRoomNamed(t, slot, cfg, "a", wroom.WithPlaceRecord(record))
	b, qb := newRoomNamed(t, slot, cfg, "b", wroom.WithPlaceRecord(record))
	rooms := []*wroom.Room{a, b}
	const patients = 200
	tickets := make([][2]gateway.Ticket, patients)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for p := range patients {
		for g, room := range rooms {
			wg.Go(func() {
				<-start
				tk, err := room.Join(context.Background(), slot,
					gateway.BookRequest{SlotID: 1, PatientID: int64(p), IdempotencyKey: fmt.Sprint("key-", g)})
				if err != nil {
					t.Errorf("patient %d at room %d: %v", p, g, err)
				}
				tickets[p][g] = tk
			})
		}
	}
	close(start)
	wg.Wait()
	for p, ts := range tickets {
		held, ok := record.holder(int64(p))
		if !ok || ts[0] == nil || ts[1] == nil {
			t.Fatalf("patient %d: no place recorded (%v) or a key without a ticket", p, ok)
		}
		places := 0
		for g, tk := range ts {
			switch tk.Following() {
			case "":
				places++
				if want := fmt.Sprint("key-", g); held.Key != want {
					t.Errorf("patient %d holds a place with %s at room %d, but the record names %s", p, want, g, held.Key)
				}
			case held.Key:
			default:
				t.Errorf("patient %d's key at room %d follows %q, want the recorded %q", p, g, tk.Following(), held.Key)
			}
		}
		if places != 1 {
			t.Errorf("patient %d holds %d places, want 1", p, places)
		}
	}
	poll.For(t, 5*time.Second, 5*time.Millisecond, func() error { // admission is asynchronous
		if n := qa.count() + qb.count(); n != patients {
			return fmt.Errorf("%d commands reached the queue for %d patients, want one each", n, patients)
		}
		return nil
	})
}

// TestAPlaceThatIsOverIsClaimedAgain: a patient's new key takes the place
// again when the recorded one is over — refused here, decided by the booker,
// or held by a gateway gone silent — and follows it while it is held.
func TestAPlaceThatIsOverIsClaimedAgain(t *testing.T) {
	opened := time.Now().Add(-time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opened.Add(24 * time.Hour), Capacity: 5, OpensAt: opened}
	nothing := func(*memPlaces, gateway.Place) {}
	cases := []struct {
		name   string
		setup  func(*memPlaces, gateway.Place) // the holder's place, as recorded
		silent time.Duration                   // since b last heard a
		over   bool
	}{
		{"held by a live gateway", nothing, 0, false},
		{"held by a gateway silent for 5 s", nothing, 5 * time.Second, false},
		{"held by a gateway gone silent", nothing, 11 * time.Second, true},
		{"decided by the booker", func(m *memPlaces, p gateway.Place) { m.decided[fmt.Sprint(p.Patient, ".", p.Key)] = true }, 0, true},
		{"released", func(m *memPlaces, p gateway.Place) { _ = m.Release(context.Background(), p) }, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			record := newMemPlaces()
			clk := &clock{t: time.Now()}
			holder, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "a", wroom.WithPlaceRecord(record))
			room, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "b", wroom.WithPlaceRecord(record), wroom.WithClock(clk.now))
			clk.advance(3 * time.Second)                             // b has listened long enough to know every live gateway
			exchange(map[string]*wroom.Room{"a": holder, "b": room}) // b hears a: a is live
			first, err := holder.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: 7, IdempotencyKey: "x"})
			if err != nil || first.Following() != "" {
				t.Fatalf("the first key: %v, following %q", err, first.Following())
			}
			p, _ := record.holder(7)
			c.setup(record, p)
			clk.advance(c.silent)
			later, err := room.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: 7, IdempotencyKey: "y"})
			if err != nil {
				t.Fatal(err)
			}
			if got := later.Following() == ""; got != c.over {
				t.Errorf("a later key at another gateway takes the place: %v, want %v (follows %q)", got, c.over, later.Following())
			}
		})
	}
}

// TestARefusedPlaceIsReleased: a place refused without reaching the booker
// (its slot filled while it waited) leaves the record, so that the patient's
// next key claims afresh; the follower at the other gateway gets the refusal.
func TestARefusedPlaceIsReleased(t *testing.T) {
	opens := time.Now().Add(5 * time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 5, OpensAt: opens}
	record := newMemPlaces()
	a, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "a", wroom.WithPlaceRecord(record))
	b, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "b", wroom.WithPlaceRecord(record))
	exchange(map[string]*wroom.Room{"a": a, "b": b})
	join := func(r *wroom.Room, key string) gateway.Ticket {
		t.Helper()
		tk, err := r.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: 7, IdempotencyKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	join(a, "x")
	follower := join(b, "y")
	a.SlotState(shared.SlotState{SlotID: 1, Left: 0}) // fills: a refuses its pre-queue
	b.Exchange().PeerPlaces("a", a.Exchange().Places(nil))
	if d, _ := follower.Decision(); d.Code != shared.CodeSlotFull {
		t.Errorf("the follower got %q, want its place's SLOT_FULL", d.Code)
	}
	waitReleased(t, record, 7)
}

func waitReleased(t *testing.T, m *memPlaces, patient int64) {
	t.Helper()
	poll.For(t, 5*time.Second, time.Millisecond, func() error {
		if p, held := m.holder(patient); held {
			return fmt.Errorf("patient %d's refused place %s is still recorded", patient, p.Key)
		}
		return nil
	})
}

// keepPlaces is a record whose releases are lost.
type keepPlaces struct{ *memPlaces }

func (keepPlaces) Release(context.Context, gateway.Place) error { return nil }

// TestAPlaceToldEndedIsClaimedAgain: when a place's release is lost, the
// note that told its end still lets the patient's next key take the place.
func TestAPlaceToldEndedIsClaimedAgain(t *testing.T) {
	opens := time.Now().Add(5 * time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 5, OpensAt: opens}
	record := keepPlaces{newMemPlaces()}
	a, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "a", wroom.WithPlaceRecord(record))
	b, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "b", wroom.WithPlaceRecord(record))
	exchange(map[string]*wroom.Room{"a": a, "b": b})
	if _, err := a.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: 7, IdempotencyKey: "x"}); err != nil {
		t.Fatal(err)
	}
	a.SlotState(shared.SlotState{SlotID: 1, Left: 0}) // fills: a refuses the place, and its release is lost
	b.Exchange().PeerPlaces("a", a.Exchange().Places(nil))
	a.SlotState(shared.SlotState{SlotID: 1, Left: 1}) // a place again
	b.SlotState(shared.SlotState{SlotID: 1, Left: 1})
	later, err := b.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: 7, IdempotencyKey: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if later.Following() != "" {
		t.Errorf("the next key follows the ended place %q, want a place of its own", later.Following())
	}
	if p, _ := record.holder(7); p.Key != "y" {
		t.Errorf("the record names %q, want the new key y", p.Key)
	}
}

// failingReplace is a record whose replacements fail.
type failingReplace struct{ *memPlaces }

func (failingReplace) Replace(context.Context, gateway.Place, uint64) (gateway.Place, error) {
	return gateway.Place{}, errors.New("record unreachable")
}

// TestAFailedClaimIsUnavailable: a claim whose replacement of a place that
// is over fails answers unavailable, and follows nobody.
func TestAFailedClaimIsUnavailable(t *testing.T) {
	opened := time.Now().Add(-time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opened.Add(24 * time.Hour), Capacity: 5, OpensAt: opened}
	record := failingReplace{newMemPlaces()}
	room, q := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "a", wroom.WithPlaceRecord(record))
	_, _ = record.Claim(t.Context(), gateway.Place{Patient: 7, Doctor: 42, OpensAt: opened.UnixMicro(), Gateway: "a", Key: "old"})
	tk, err := room.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: 7, IdempotencyKey: "new"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tk.Decision(); !errors.Is(err, gateway.ErrUnavailable) || tk.Following() != "" {
		t.Errorf("a failed claim: %v, following %q; want unavailable, following nobody", err, tk.Following())
	}
	if q.count() != 0 {
		t.Errorf("%d commands reached the queue after a failed claim, want none", q.count())
	}
}

// TestALoneGatewayClaimsNothing: a gateway that has heard no other for
// long enough takes places without the shared record (a claim costs a
// stream write per place, at the opening's first second); it claims while
// it cannot know yet, and again as soon as another gateway is heard.
func TestALoneGatewayClaimsNothing(t *testing.T) {
	opens := time.Now().Add(5 * time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 5, OpensAt: opens}
	record := newMemPlaces()
	var offset atomic.Int64
	clock := wroom.WithClock(func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
	a, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "a", wroom.WithPlaceRecord(record), clock)
	join := func(patient int64) {
		t.Helper()
		tk, err := a.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: patient, IdempotencyKey: "k"})
		if err != nil || tk == nil {
			t.Fatal(err)
		}
	}
	claimed := func(patient int64) func() error {
		return func() error {
			if _, ok := record.holder(patient); !ok {
				return fmt.Errorf("patient %d's place is not in the record", patient)
			}
			return nil
		}
	}
	join(1) // just started: it cannot know whether it is alone
	poll.For(t, 5*time.Second, 5*time.Millisecond, claimed(1))
	offset.Store(int64(3 * time.Second))
	join(2) // heard nobody since it started
	a.Exchange().PeerLoads("b", nil, true)
	join(3) // another gateway is there
	poll.For(t, 5*time.Second, 5*time.Millisecond, claimed(3))
	if _, ok := record.holder(2); ok {
		t.Error("a gateway alone claimed patient 2's place")
	}
}

// TestAPlaceTakenAloneYieldsToAClaimedOne: a patient's key took a place at a
// gateway that was alone (unclaimed) in the same tick as another key took
// one, claimed, at a gateway that just started; once their notes cross, the
// patient holds one place: the claimed one, whatever the gateways' names.
func TestAPlaceTakenAloneYieldsToAClaimedOne(t *testing.T) {
	opens := time.Now().Add(5 * time.Minute)
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: 5, OpensAt: opens}
	for _, names := range [][2]string{{"a", "b"}, {"b", "a"}} {
		t.Run(names[0]+" alone", func(t *testing.T) {
			record := newMemPlaces()
			var offset atomic.Int64
			later := wroom.WithClock(func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
			lone, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), names[0], wroom.WithPlaceRecord(record), later)
			offset.Store(int64(3 * time.Second)) // the lone gateway has listened long enough
			newcomer, _ := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), names[1], wroom.WithPlaceRecord(record))
			join := func(r *wroom.Room, key string) gateway.Ticket {
				t.Helper()
				tk, err := r.Join(t.Context(), slot, gateway.BookRequest{SlotID: 1, PatientID: 7, IdempotencyKey: key})
				if err != nil {
					t.Fatal(err)
				}
				return tk
			}
			unclaimed := join(lone, "x")
			claimed := join(newcomer, "y")
			poll.For(t, 5*time.Second, 5*time.Millisecond, func() error {
				if _, ok := record.holder(7); !ok {
					return fmt.Errorf("the newcomer's place is not claimed yet")
				}
				return nil
			})
			lone.Exchange().PeerPlaces(names[1], newcomer.Exchange().Places(nil))
			newcomer.Exchange().PeerPlaces(names[0], lone.Exchange().Places(nil))
			if unclaimed.Following() != "y" || claimed.Following() != "" {
				t.Errorf("the unclaimed place follows %q and the claimed one %q; want the unclaimed to follow y, the claimed to hold",
					unclaimed.Following(), claimed.Following())
			}
		})
	}
}
