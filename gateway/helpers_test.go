package gateway_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"termin/gateway"
	wroom "termin/gateway/room"
	"termin/shared"
)

// fixedSlot is a SlotSource that answers every id with one slot.
type fixedSlot gateway.Slot

// Slot implements gateway.SlotSource.
func (s fixedSlot) Slot(context.Context, int64) (gateway.Slot, error) { return gateway.Slot(s), nil }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// request is patient's booking of slot under the key "k".
func request(slot gateway.Slot, patient int64) gateway.BookRequest {
	return gateway.BookRequest{SlotID: slot.ID, PatientID: patient, IdempotencyKey: "k"}
}

// silentQueue takes every command and never decides one.
type silentQueue struct{}

func (silentQueue) Submit(context.Context, int64, string, shared.Command) (<-chan shared.Decision, error) {
	return make(chan shared.Decision), nil
}

// fullRoom is a waiting room whose one slot the booker announced full, the
// holder holding a place in it.
func fullRoom(tb testing.TB, slotID, holder int64) *wroom.Room {
	tb.Helper()
	room := wroom.New(gateway.DefaultRoomConfig(), silentQueue{}, fixedSlot(gateway.Slot{ID: slotID}), quiet())
	room.SlotState(shared.SlotState{SlotID: slotID, Left: 0, Holders: []int64{holder}})
	return room
}
