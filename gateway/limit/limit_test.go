package limit_test

import (
	"fmt"
	"testing"
	"time"

	"termin/gateway"
	"termin/gateway/limit"
)

// clock is a settable time for the limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newLimiter(c *clock) *limit.Limiter {
	return limit.New(5, 10*time.Second, c.now)
}

func TestLimiterCountsNewKeysOnly(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := newLimiter(c)
	steps := []struct {
		name    string
		advance time.Duration
		key     string
		allowed bool
	}{
		{"1st key", 0, "k1", true},
		{"2nd key", time.Second, "k2", true},
		{"3rd key", time.Second, "k3", true},
		{"4th key", time.Second, "k4", true},
		{"5th key", time.Second, "k5", true},
		{"6th key within the window", time.Second, "k6", false},
		{"repeat of a known key is no attempt", 0, "k3", true},
		{"the 1st attempt has left the window", 5 * time.Second, "k7", true},
		{"but the 2nd has not", 0, "k8", false},
	}
	for _, st := range steps {
		c.advance(st.advance)
		ok, wait := l.Allow(7, gateway.HashKey(st.key))
		if ok != st.allowed {
			t.Fatalf("%s: allowed = %v, want %v", st.name, ok, st.allowed)
		}
		if !ok && (wait <= 0 || wait > 10*time.Second) {
			t.Errorf("%s: wait %v, want the time until the oldest attempt leaves the window", st.name, wait)
		}
	}
	if ok, _ := l.Allow(8, gateway.HashKey("k1")); !ok {
		t.Error("another patient is limited by patient 7's attempts")
	}
}

func TestLimiterCountsAttemptsOfOtherReplicas(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	here, there := newLimiter(c), newLimiter(c)
	for i := range 3 {
		if ok, _ := there.Allow(7, gateway.HashKey(fmt.Sprint("there-", i))); !ok {
			t.Fatal("refused below the limit")
		}
	}
	for _, a := range there.Outbox(nil) {
		here.Observe(a)
	}
	for i := range 2 {
		if ok, _ := here.Allow(7, gateway.HashKey(fmt.Sprint("here-", i))); !ok {
			t.Fatal("refused below the shared limit")
		}
	}
	if ok, _ := here.Allow(7, gateway.HashKey("here-2")); ok {
		t.Error("6th attempt across two replicas allowed")
	}
	if ok, _ := here.Allow(7, gateway.HashKey("there-1")); !ok {
		t.Error("a repeat of a key made at the other replica was counted as an attempt")
	}
	if n := here.Attempts(7); n != 5 {
		t.Errorf("Attempts = %d, want 5", n)
	}
}

func BenchmarkLimiterRefusal(b *testing.B) {
	l := limit.New(5, 10*time.Second, time.Now)
	for i := range 5 {
		l.Allow(7, uint64(i))
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := l.Allow(7, 99); ok {
			b.Fatal("allowed")
		}
	}
}

// TestLimiterRefusesForgedDates: an attempt dated ahead (a forged message
// on gateway.attempts) or long gone does not count against the patient.
func TestLimiterRefusesForgedDates(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := newLimiter(c)
	tests := []struct {
		name string
		at   time.Time
		want int
	}{
		{"a day ahead", c.t.Add(24 * time.Hour), 0},
		{"a minute ahead", c.t.Add(time.Minute), 0},
		{"before the window", c.t.Add(-11 * time.Second), 0},
		{"within the clocks' skew", c.t.Add(time.Second), 1},
		{"a second ago", c.t.Add(-time.Second), 2},
	}
	for i, tt := range tests {
		l.Observe(gateway.Attempt{Patient: 77, Key: uint64(i + 1), At: tt.at.UnixNano()})
		if got := l.Attempts(77); got != tt.want {
			t.Errorf("%s: %d attempts counted, want %d", tt.name, got, tt.want)
		}
	}
	l.Observe(gateway.Attempt{Patient: -1, Key: 9, At: c.t.UnixNano()})
	if l.Patients() != 1 {
		t.Errorf("%d patients tracked, want 1 (a negative id is no patient)", l.Patients())
	}
}

// TestLimiterBoundsPatients: however many ids arrive, from clients or the
// bus, the limiter tracks at most MaxPatients, expired ones going first.
func TestLimiterBoundsPatients(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := newLimiter(c)
	l.MaxPatients = 100
	for p := int64(1); p <= 50; p++ {
		l.Allow(p, 1)
	}
	c.advance(11 * time.Second) // the first 50 expire
	for p := int64(1001); p <= 1100; p++ {
		if ok, _ := l.Allow(p, 1); !ok {
			t.Fatalf("patient %d refused", p)
		}
		l.Observe(gateway.Attempt{Patient: p + 10_000, Key: 1, At: c.t.UnixNano()})
		if n := l.Patients(); n > 100 {
			t.Fatalf("%d patients tracked, bound 100", n)
		}
	}
	if l.Attempts(1) != 0 {
		t.Error("an expired patient is still counted")
	}
}
