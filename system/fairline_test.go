package system_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"termin/gateway"
	gatewayapp "termin/gateway/app"
	"termin/gateway/room"
	"termin/shared/poll"
)

// TestTwoGatewaysKeepOneLine: two gateways pre-queue patients for one
// opening of a capacity-2 slot. Together they put at most places + margin
// commands on the stream; a pre-queued request's position counts both
// gateways' entrants; each gateway admits its entrants in the common
// lottery's order, so every winner is among the first of its gateway's
// entrants by that order.
func TestTwoGatewaysKeepOneLine(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	other := s.startGateway()
	gws := []*gatewayapp.App{s.gateway, other}
	opens := s.now().Add(3 * time.Second).Truncate(time.Microsecond)
	slot := s.slot(42, opens.Add(24*time.Hour), 2)
	if _, err := s.db.Exec(t.Context(), `UPDATE time_slot SET opens_at = $1 WHERE id = $2`, opens, slot); err != nil {
		t.Fatal(err)
	}
	const perGateway = 25
	before := s.lastSeq()
	entrants := [2][]int64{}
	var wg sync.WaitGroup
	for g, gw := range gws {
		for i := range perGateway {
			p := int64(100*(g+1) + i)
			entrants[g] = append(entrants[g], p)
			wg.Go(func() { _, _ = s.doAt(gw, "POST", "/api/appointments", "line", bookBody(slot, p)) })
		}
	}
	wg.Wait()
	poll.For(t, 2*time.Second, 50*time.Millisecond, func() error {
		a := s.postViaOnce(s.gateway, slot, 100, "line") // a repeat: its place, not a new one
		if pos, _ := a.body["position"].(float64); a.status != http.StatusAccepted || int(pos) != 2*perGateway {
			return fmt.Errorf("a pre-queued request: %d %v, want 202 at %d (both gateways' entrants)", a.status, a.body, 2*perGateway)
		}
		return nil
	})
	winners := s.decideAll(gws, slot, entrants)
	margin := gateway.DefaultRoomConfig().Margin
	if n := s.lastSeq() - before; n > uint64(2+margin) {
		t.Errorf("%d commands reached the stream for a slot of 2 places, want at most places + margin = %d", n, 2+margin)
	}
	secret := room.OpeningSecret(testLotterySecret, 42, opens)
	bound := 2 + margin
	for g := range gws {
		order := slices.Clone(entrants[g])
		slices.SortFunc(order, func(a, b int64) int {
			ra, rb := room.LotteryRank(secret, a), room.LotteryRank(secret, b)
			return map[bool]int{true: -1, false: 1}[ra < rb]
		})
		for _, w := range winners {
			if i := slices.Index(order, w); i >= bound {
				t.Errorf("winner %d is %d-th of its gateway's draw: the gateways did not follow the common lottery", w, i+1)
			}
		}
	}
	if len(winners) != 2 {
		t.Errorf("%d winners, want 2", len(winners))
	}
}

// decideAll repeats every entrant's request at its gateway until none is
// queued, and returns the patients who booked.
func (s *stack) decideAll(gws []*gatewayapp.App, slot int64, entrants [2][]int64) []int64 {
	s.t.Helper()
	var winners []int64
	poll.For(s.t, 20*time.Second, 200*time.Millisecond, func() error {
		winners = winners[:0]
		for g, gw := range gws {
			for _, p := range entrants[g] {
				a := s.postViaOnce(gw, slot, p, "line")
				switch a.status {
				case http.StatusAccepted:
					return fmt.Errorf("patient %d still queued", p)
				case http.StatusCreated, http.StatusOK:
					winners = append(winners, p)
				}
			}
		}
		return nil
	})
	return winners
}

// TestOnePlaceAcrossTwoGateways: a patient's two keys on two slots of one
// opening, sent to two gateways, hold one place: after the opening one key
// has the booking (201) and the other the same appointment (200).
func TestOnePlaceAcrossTwoGateways(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	other := s.startGateway()
	opens := s.now().Add(3 * time.Second).Truncate(time.Microsecond)
	c, d := s.slot(42, opens.Add(24*time.Hour), 1), s.slot(42, opens.Add(25*time.Hour), 1)
	if _, err := s.db.Exec(t.Context(), `UPDATE time_slot SET opens_at = $1 WHERE id = ANY($2)`, opens, []int64{c, d}); err != nil {
		t.Fatal(err)
	}
	s.postViaOnce(s.gateway, c, 9, "x")
	s.postViaOnce(other, d, 9, "y")
	var x, y answer
	poll.For(t, 20*time.Second, 200*time.Millisecond, func() error {
		x, y = s.postViaOnce(s.gateway, c, 9, "x"), s.postViaOnce(other, d, 9, "y")
		if x.status == http.StatusAccepted || y.status == http.StatusAccepted {
			return fmt.Errorf("still queued: %d and %d", x.status, y.status)
		}
		return nil
	})
	// A request answered 202 first finds its booking later as 200, so both
	// keys may end with 200; what matters is that both name one appointment.
	booked := func(a answer) bool { return a.status == http.StatusOK || a.status == http.StatusCreated }
	if !booked(x) || !booked(y) || x.body["id"] != y.body["id"] {
		t.Errorf("key x at one gateway: %d %v; key y at the other: %d %v; want both booked with one appointment",
			x.status, x.body, y.status, y.body)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 9`); n != 1 {
		t.Errorf("patient 9 holds %d appointments in one opening, want 1", n)
	}
}

// TestKeysAtTwoGatewaysAtOnceHoldOnePlace: a patient's two keys on two slots
// of one opening (opened a minute ago, so a place is admitted at once) reach
// two gateways at the same instant, for many patients at once: each patient
// ends with one appointment, and both keys name it. The booker is away
// while the keys come in, so that every place is still undecided when the
// patient's other key finds it, however slowly a loaded machine serves the
// requests: a place the booker has decided is over, and a later key lines up
// again (see "The line's fairness" in docs/architecture.md).
func TestKeysAtTwoGatewaysAtOnceHoldOnePlace(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	gws := []*gatewayapp.App{s.gateway, s.startGateway()}
	if err := s.booker.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	opened := s.now().Add(-time.Minute).Truncate(time.Microsecond)
	slots := []int64{s.slot(42, opened.Add(24*time.Hour), 1000), s.slot(42, opened.Add(25*time.Hour), 1000)}
	if _, err := s.db.Exec(t.Context(), `UPDATE time_slot SET opens_at = $1 WHERE id = ANY($2)`, opened, slots); err != nil {
		t.Fatal(err)
	}
	const patients = 60
	keys := []string{"at-one", "at-other"}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for p := int64(1); p <= patients; p++ {
		for g, gw := range gws {
			wg.Go(func() {
				<-start
				_, _ = s.doAt(gw, "POST", "/api/appointments", keys[g], bookBody(slots[g], p))
			})
		}
	}
	close(start)
	wg.Wait()
	s.startBooker(nil, nil)
	for p := int64(1); p <= patients; p++ {
		var ids [2]float64
		poll.For(t, 20*time.Second, 100*time.Millisecond, func() error {
			for g, gw := range gws {
				a, err := s.doAt(gw, "POST", "/api/appointments", keys[g], bookBody(slots[g], p))
				switch {
				case err != nil:
					return err
				case a.status != http.StatusOK && a.status != http.StatusCreated:
					return fmt.Errorf("patient %d's key %s: %d %v", p, keys[g], a.status, a.body)
				}
				ids[g], _ = a.body["id"].(float64)
			}
			return nil
		})
		if ids[0] != ids[1] {
			t.Errorf("patient %d's keys name appointments %v and %v, want one", p, ids[0], ids[1])
		}
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = ANY($1) GROUP BY patient_id ORDER BY 1 DESC LIMIT 1`, slots); n != 1 {
		t.Errorf("a patient holds %d appointments in one opening, want 1", n)
	}
	if n := s.queryInt(`SELECT count(DISTINCT patient_id) FROM appointment WHERE slot_id = ANY($1)`, slots); n != patients {
		t.Errorf("%d patients booked, want all %d", n, patients)
	}
}
