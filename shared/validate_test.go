package shared_test

import (
	"errors"
	"strings"
	"testing"

	"termin/shared"
)

func TestCommandValidate(t *testing.T) {
	good := shared.Command{V: 1, Kind: shared.KindBook, SlotID: 1, PatientID: 2, IdempotencyKey: "k-1_A", TraceID: "req.1:x", RequestID: "abc"}
	tests := []struct {
		name string
		edit func(*shared.Command)
		ok   bool
	}{
		{"good booking", func(*shared.Command) {}, true},
		{"good cancellation", func(c *shared.Command) { *c = shared.Command{V: 1, Kind: shared.KindCancel, AppointmentID: 9} }, true},
		{"64-character key", func(c *shared.Command) { c.IdempotencyKey = strings.Repeat("k", 64) }, true},
		{"65-character key", func(c *shared.Command) { c.IdempotencyKey = strings.Repeat("k", 65) }, false},
		{"empty key", func(c *shared.Command) { c.IdempotencyKey = "" }, false},
		{"key with a dot", func(c *shared.Command) { c.IdempotencyKey = "a.b" }, false},
		{"key with a space", func(c *shared.Command) { c.IdempotencyKey = "a b" }, false},
		{"zero slot", func(c *shared.Command) { c.SlotID = 0 }, false},
		{"negative patient", func(c *shared.Command) { c.PatientID = -1 }, false},
		{"version 3 without slotIds", func(c *shared.Command) { c.V = 3 }, false},
		{"alternatives", func(c *shared.Command) { c.V, c.SlotIDs = 3, []int64{1, 5, 3} }, true},
		{"twenty alternatives", func(c *shared.Command) { c.V, c.SlotIDs = 3, ids(20) }, true},
		{"twenty-one alternatives", func(c *shared.Command) { c.V, c.SlotIDs = 3, ids(21) }, false},
		{"one alternative", func(c *shared.Command) { c.V, c.SlotIDs = 3, []int64{1} }, false},
		{"alternatives not led by slotId", func(c *shared.Command) { c.V, c.SlotIDs = 3, []int64{5, 1} }, false},
		{"an alternative twice", func(c *shared.Command) { c.V, c.SlotIDs = 3, []int64{1, 5, 5} }, false},
		{"a negative alternative", func(c *shared.Command) { c.V, c.SlotIDs = 3, []int64{1, -5} }, false},
		{"alternatives at version 1", func(c *shared.Command) { c.SlotIDs = []int64{1, 5} }, false},
		{"alternatives with a bad key", func(c *shared.Command) { c.V, c.SlotIDs, c.IdempotencyKey = 3, []int64{1, 5}, "a b" }, false},
		{"a cancellation with alternatives", func(c *shared.Command) {
			*c = shared.Command{V: 3, Kind: shared.KindCancel, AppointmentID: 9, SlotIDs: []int64{1, 5}}
		}, false},
		{"alternatives at version 2", func(c *shared.Command) { c.V, c.SlotIDs = 2, []int64{1, 5} }, false},
		{"alternatives with a hold", func(c *shared.Command) { c.V, c.SlotIDs, c.Hold = 3, []int64{1, 5}, true }, false},
		{"version 4", func(c *shared.Command) { c.V = 4 }, false},
		{"a plain booking at version 2", func(c *shared.Command) { c.V = 2 }, true},
		{"a hold at version 1", func(c *shared.Command) { c.Hold = true }, false},
		{"a hold at version 2", func(c *shared.Command) { c.V, c.Hold = 2, true }, true},
		{"minutes at version 1", func(c *shared.Command) { c.Minutes = 30 }, false},
		{"30 minutes at version 2", func(c *shared.Command) { c.V, c.Minutes = 2, 30 }, true},
		{"negative minutes", func(c *shared.Command) { c.V, c.Minutes = 2, -15 }, false},
		{"minutes beyond a day", func(c *shared.Command) { c.V, c.Minutes = 2, 24*60+5 }, false},
		{"good confirmation", func(c *shared.Command) { *c = shared.Command{V: 2, Kind: shared.KindConfirm, AppointmentID: 9} }, true},
		{"confirmation at version 1", func(c *shared.Command) { *c = shared.Command{V: 1, Kind: shared.KindConfirm, AppointmentID: 9} }, false},
		{"confirmation without id", func(c *shared.Command) { *c = shared.Command{V: 2, Kind: shared.KindConfirm} }, false},
		{"unknown kind", func(c *shared.Command) { c.Kind = "drop" }, false},
		{"cancellation without id", func(c *shared.Command) { *c = shared.Command{V: 1, Kind: shared.KindCancel} }, false},
		{"good reschedule", func(c *shared.Command) {
			*c = shared.Command{V: 1, Kind: shared.KindReschedule, AppointmentID: 9, SlotID: 3, PatientID: 7, IdempotencyKey: "m-1"}
		}, true},
		{"reschedule without appointment", func(c *shared.Command) {
			*c = shared.Command{V: 1, Kind: shared.KindReschedule, SlotID: 3, PatientID: 7, IdempotencyKey: "m-1"}
		}, false},
		{"reschedule with a bad key", func(c *shared.Command) {
			*c = shared.Command{V: 1, Kind: shared.KindReschedule, AppointmentID: 9, SlotID: 3, PatientID: 7, IdempotencyKey: "m 1"}
		}, false},
		{"long trace id", func(c *shared.Command) { c.TraceID = strings.Repeat("t", 129) }, false},
		{"trace id with a newline", func(c *shared.Command) { c.TraceID = "a\nb" }, false},
		{"long reply token", func(c *shared.Command) { c.RequestID = strings.Repeat("r", 65) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			err := c.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, shared.ErrInvalidCommand)) {
				t.Errorf("Validate(%+v) = %v, want ok=%v", c, err, tt.ok)
			}
		})
	}
}

// ids is 1..n.
func ids(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}
