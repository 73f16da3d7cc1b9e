package room_test

import (
	"fmt"
	"testing"
	"time"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/shared/poll"
)

// exchange tells each room the others' loads, as the gateways' exchange
// over NATS does every 100 ms.
func exchange(rooms map[string]*wroom.Room) {
	for name, r := range rooms {
		loads, _ := r.Exchange().Loads(nil, false)
		for other, o := range rooms {
			if other != name {
				o.Exchange().PeerLoads(name, loads, false)
			}
		}
	}
}

// TestRoomsSplitASlotsAdmissions: two gateways' pre-queues for one slot
// admit, together, at most places + margin at the opening, in proportion to
// their demand; each ticket's position counts the other gateway's requests.
func TestRoomsSplitASlotsAdmissions(t *testing.T) {
	cases := []struct {
		name         string
		places, a, b int
	}{
		{"even", 1, 10, 10},
		{"uneven", 2, 30, 6},
		{"one request at b", 1, 20, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opens := time.Now().Add(150 * time.Millisecond)
			slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: opens.Add(time.Hour), Capacity: c.places, OpensAt: opens}
			cfg := gateway.DefaultRoomConfig()
			cfg.Secret = "common"
			ra, qa := newRoomNamed(t, slot, cfg, "a")
			rb, qb := newRoomNamed(t, slot, cfg, "b")
			ta := joinFrom(t, ra, slot, 0, c.a)
			joinFrom(t, rb, slot, 1000, c.b)
			exchange(map[string]*wroom.Room{"a": ra, "b": rb})
			if pos, _ := ta[0].Position(); pos != c.a+c.b {
				t.Errorf("a pre-queued request is at %d, want every entrant of both gateways: %d", pos, c.a+c.b)
			}
			bound := c.places + cfg.Margin
			poll.For(t, 5*time.Second, 5*time.Millisecond, func() error {
				if got := qa.count() + qb.count(); got != bound {
					return fmt.Errorf("%d + %d admitted, want %d together", qa.count(), qb.count(), bound)
				}
				return nil
			})
			wantA := bound * c.a / (c.a + c.b)
			if qa.count() < wantA || qa.count() > wantA+1 {
				t.Errorf("a admitted %d of %d, want its share %d (or one more)", qa.count(), bound, wantA)
			}
			last := 0
			for _, tk := range ta {
				pos, _ := tk.Position()
				last = max(last, pos)
			}
			if last != c.a+c.b {
				t.Errorf("a's last request is at %d, want behind both gateways' requests: %d", last, c.a+c.b)
			}
		})
	}
}

func newRoomNamed(tb testing.TB, slot gateway.Slot, cfg gateway.RoomConfig, name string, opts ...wroom.Option) (*wroom.Room, *slowQueue) {
	tb.Helper()
	q := &slowQueue{}
	return wroom.New(cfg, q, fixedSlot(slot), quiet(), append(opts, wroom.WithPeerName(name))...), q
}

func joinFrom(t testing.TB, room *wroom.Room, slot gateway.Slot, first int64, n int) []gateway.Ticket {
	t.Helper()
	var out []gateway.Ticket
	for p := first; p < first+int64(n); p++ {
		tk, err := room.Join(t.Context(), slot, request(slot, p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tk)
	}
	return out
}

// BenchmarkLoads is what the exchange costs a gateway under the room's lock
// at an opening of 2,000 doctors × 40 slots: "full" every 2 s, "changes"
// every 100 ms (here: none since the last).
func BenchmarkLoads(b *testing.B) {
	opens := time.Now().Add(time.Hour)
	cfg := gateway.DefaultRoomConfig()
	cfg.PreWindow = 2 * time.Hour
	room := wroom.New(cfg, &slowQueue{}, fixedSlot(gateway.Slot{Capacity: 1, OpensAt: opens, StartAt: opens.Add(time.Hour)}), quiet())
	for id := int64(1); id <= 80_000; id++ {
		slot := gateway.Slot{ID: id, DoctorID: id / 40, Capacity: 1, OpensAt: opens, StartAt: opens.Add(time.Hour)}
		if _, err := room.Join(b.Context(), slot, request(slot, id)); err != nil {
			b.Fatal(err)
		}
	}
	for _, full := range []bool{true, false} {
		b.Run(map[bool]string{true: "full", false: "changes"}[full], func(b *testing.B) {
			var buf []gateway.LineLoad
			room.Exchange().PeerLoads("b", nil, true) // a peer, or no full list is made
			for b.Loop() {
				buf, _ = room.Exchange().Loads(buf[:0], full)
			}
		})
	}
}

// BenchmarkAdmission is a request's join and admission, alone and with a
// peer gateway waiting for the same slot (its share computed each time).
func BenchmarkAdmission(b *testing.B) {
	for _, peers := range []int{0, 1} {
		b.Run(fmt.Sprintf("peers=%d", peers), func(b *testing.B) {
			slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 1 << 30}
			room, _ := newRoomNamed(b, slot, gateway.DefaultRoomConfig(), "a")
			if peers > 0 {
				room.Exchange().PeerLoads("b", []gateway.LineLoad{{SlotID: 1, Demand: 1000}}, true)
			}
			i := int64(0)
			for b.Loop() {
				i++
				if _, err := room.Join(b.Context(), slot, request(slot, i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRoomLeavesWhatOtherGatewaysHaveOut: a gateway never admits more than
// places + margin minus the commands the others have in the queue, whatever
// its share by demand; when theirs are decided, it admits its share.
func TestRoomLeavesWhatOtherGatewaysHaveOut(t *testing.T) {
	slot := gateway.Slot{ID: 1, DoctorID: 42, StartAt: time.Now().Add(time.Hour), Capacity: 1}
	room, q := newRoomNamed(t, slot, gateway.DefaultRoomConfig(), "a")
	room.Exchange().PeerLoads("b", []gateway.LineLoad{{SlotID: 1, Demand: 10, Inflight: 5}}, true) // all 1 + 4 out at b
	joinFrom(t, room, slot, 0, 10)
	if n := q.count(); n != 0 {
		t.Fatalf("%d admitted while the other gateway has the whole bound out", n)
	}
	room.Exchange().PeerLoads("b", []gateway.LineLoad{{SlotID: 1, Demand: 5, Inflight: 0}}, false)
	joinFrom(t, room, slot, 100, 1) // any change admits again
	q.waitCount(t, 3)               // 5 × 11/16 = 3 (the remainder goes to b: 25 mod 16 > 55 mod 16)
}
