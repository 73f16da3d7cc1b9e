package gateway_test

import (
	"testing"
	"time"

	"termin/gateway/limit"
)

// TestRejectPathsAllocateNothing holds the shield's promise: refusing a
// patient over the limit, or a request for a known-full slot, allocates nothing.
func TestRejectPathsAllocateNothing(t *testing.T) {
	l := limit.New(5, 10*time.Second, time.Now)
	for i := range 5 {
		l.Allow(7, uint64(i))
	}
	room := fullRoom(t, 42, 7)
	tests := map[string]func(){
		"limiter refusal": func() { l.Allow(7, 99) },
		"known full":      func() { room.KnownFull(42, 8) },
	}
	for name, fn := range tests {
		if n := testing.AllocsPerRun(1000, fn); n != 0 {
			t.Errorf("%s: %v allocations per request, want 0", name, n)
		}
	}
}

func BenchmarkKnownFull(b *testing.B) {
	room := fullRoom(b, 42, 7)
	b.ReportAllocs()
	for b.Loop() {
		if !room.KnownFull(42, 8) {
			b.Fatal("not known full")
		}
	}
}
