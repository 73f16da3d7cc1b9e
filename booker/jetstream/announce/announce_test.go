package announce_test

import (
	"context"
	"testing"
	"time"

	"termin/booker/jetstream/announce"
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
