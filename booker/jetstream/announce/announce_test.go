package announce_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"termin/booker/internal/testkit"
	"termin/booker/jetstream/announce"
	"termin/shared"
)

// TestAnnouncerBoundsTrackedSlots: refusals of ever new slots keep at most
// MaxTracked entries, and a slot announced within Refresh is still held back.
func TestAnnouncerBoundsTrackedSlots(t *testing.T) {
	a := &announce.Announcer{Refresh: time.Hour, MaxTracked: 100}
	ctx := context.Background()
	for id := int64(1); id <= 10_000; id++ {
		if _, ok := a.Refused(ctx, id); !ok {
			t.Fatalf("slot %d: first refusal not announced", id)
		}
		if n := a.Tracked(); n > 100 {
			t.Fatalf("%d slots tracked, bound 100", n)
		}
	}
	if _, ok := a.Refused(ctx, 10_000); ok {
		t.Error("a slot announced a moment ago was announced again")
	}
}

// holderReader answers from a map, or fails, and keeps each read's slots.
type holderReader struct {
	holders map[int64][]int64
	fail    bool
	reads   [][]int64
}

func (r *holderReader) Holders(_ context.Context, slotIDs []int64) (map[int64][]int64, error) {
	r.reads = append(r.reads, slotIDs)
	if r.fail {
		return nil, errors.New("database gone")
	}
	return r.holders, nil
}

// TestSendReadsTheUnknownHoldersAtOnce: the full slots whose holders a
// batch did not learn have them read in one read, not one each; when that
// read fails, those slots are left out and the others still go out.
func TestSendReadsTheUnknownHoldersAtOnce(t *testing.T) {
	tests := []struct {
		name string
		fail bool
		want []shared.SlotState
	}{
		{"read", false, []shared.SlotState{{SlotID: 1, Holders: []int64{9}}, {SlotID: 2, Holders: []int64{5, 6}}, {SlotID: 3}, {SlotID: 4, Left: 2}}},
		{"read failed", true, []shared.SlotState{{SlotID: 1, Holders: []int64{9}}, {SlotID: 4, Left: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nc, _, ns := testkit.NATS(t)
			sub, err := nc.SubscribeSync(ns.Subject(shared.SlotStateSubject) + "." + shared.SlotStatesToken)
			if err != nil {
				t.Fatal(err)
			}
			reader := &holderReader{holders: map[int64][]int64{2: {5, 6}}, fail: tt.fail}
			a := &announce.Announcer{Conn: nc, Namespace: ns, Holders: reader, Refresh: time.Second}
			a.Send(context.Background(), []shared.SlotState{{SlotID: 1, Holders: []int64{9}}, {SlotID: 2}, {SlotID: 3}, {SlotID: 4, Left: 2}})
			if len(reader.reads) != 1 || !slices.Equal(reader.reads[0], []int64{2, 3}) {
				t.Fatalf("reads %v, want one of slots [2 3]", reader.reads)
			}
			msg, err := sub.NextMsg(5 * time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var got []shared.SlotState
			if err := json.Unmarshal(msg.Data, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("announced %+v, want %+v", got, tt.want)
			}
		})
	}
}
