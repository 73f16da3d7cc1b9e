package gateway_test

import (
	"context"
	"testing"
	"time"

	"termin/gateway"
	"termin/shared"
)

// anySlot answers every slot id and list with an empty day, as a database
// would for ids a client makes up; the reads it leaves out panic if reached.
type anySlot struct{ gateway.Reads }

func (anySlot) Slot(_ context.Context, id int64) (gateway.Slot, error) {
	return gateway.Slot{ID: id}, nil
}
func (anySlot) ListSlots(context.Context, int64, shared.Date) ([]gateway.Slot, error) {
	return nil, nil
}
func (anySlot) Appointment(context.Context, int64) (gateway.Appointment, error) {
	return gateway.Appointment{}, gateway.ErrAppointmentNotFound
}
func (anySlot) Doctor(context.Context, int64) (gateway.Doctor, bool, error) {
	return gateway.Doctor{}, false, nil
}

// TestCachesAreBounded: doctor ids, dates and slot ids come from clients;
// the caches keyed by them stay within their bounds.
func TestCachesAreBounded(t *testing.T) {
	ctx := context.Background()
	lists := gateway.NewSlotLists(anySlot{}, time.Minute, time.UTC)
	lists.MaxEntries = 50
	slots := gateway.NewSlotCache(anySlot{}, time.Minute, 50)
	for id := int64(1); id <= 1000; id++ {
		if _, err := lists.ListSlots(ctx, id, shared.Date{Year: 2026, Month: 12, Day: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := slots.Slot(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, _, err := lists.Doctor(ctx, id); err != nil {
			t.Fatal(err)
		}
		if lists.Len() > 50 || slots.Len() > 50 || lists.DoctorsCached() > 50 {
			t.Fatalf("after %d ids: %d lists, %d slots, %d doctors cached; bound 50", id, lists.Len(), slots.Len(), lists.DoctorsCached())
		}
	}
}
