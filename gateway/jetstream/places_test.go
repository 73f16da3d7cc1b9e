package jetstream_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"termin/gateway"
	"termin/gateway/jetstream"
	"termin/shared"
)

func places(t *testing.T, b *bus) *jetstream.Places {
	t.Helper()
	p, err := b.gateway().Places(t.Context(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlacesAreClaimedOnceAcrossGateways: two gateways claim the places of
// many patients at the same instant; for each, exactly one claim wins and
// the other reads the winner.
func TestPlacesAreClaimedOnceAcrossGateways(t *testing.T) {
	b := newBus(t)
	rec := []*jetstream.Places{places(t, b), places(t, b)} // the second binds the first's bucket
	const patients = 100
	got := make([][2]gateway.Place, patients)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for p := range patients {
		for g, r := range rec {
			wg.Go(func() {
				<-start
				want := gateway.Place{Patient: int64(p + 1), Doctor: 42, OpensAt: 1_700_000_000_000_000,
					Gateway: fmt.Sprint("gw", g), Key: fmt.Sprint("k", g)}
				var err error
				if got[p][g], err = r.Claim(context.Background(), want); err != nil {
					t.Error(err)
				}
			})
		}
	}
	close(start)
	wg.Wait()
	for p, pair := range got {
		if pair[0] != pair[1] || pair[0].Rev == 0 {
			t.Errorf("patient %d: the gateways read %+v and %+v, want one place", p+1, pair[0], pair[1])
		}
	}
}

// TestPlacesChangeHandsOnlyAtTheirRevision: a replacement or release at the
// revision read takes effect; at an older one it leaves the holder be; a
// released place is claimed afresh; Decided reads the decisions bucket.
func TestPlacesChangeHandsOnlyAtTheirRevision(t *testing.T) {
	b := newBus(t)
	rec := places(t, b)
	ctx := t.Context()
	at := func(gw, key string) gateway.Place {
		return gateway.Place{Patient: 7, Doctor: 42, OpensAt: -5, Gateway: gw, Key: key}
	}
	first, err := rec.Claim(ctx, at("a", "x"))
	check := func(what string, got gateway.Place, err error, gw, key string) gateway.Place {
		t.Helper()
		if err != nil || got.Gateway != gw || got.Key != key {
			t.Errorf("%s: %+v, %v; want held by %s with %s", what, got, err, gw, key)
		}
		return got
	}
	check("first claim", first, err, "a", "x")
	second, err := rec.Replace(ctx, at("b", "y"), first.Rev)
	check("replaced at its revision", second, err, "b", "y")
	stale, err := rec.Replace(ctx, at("c", "z"), first.Rev)
	check("replaced at an older revision", stale, err, "b", "y")
	if err := rec.Release(ctx, first); err != nil {
		t.Errorf("release at an older revision: %v, want nothing done", err)
	}
	held, err := rec.Claim(ctx, at("c", "z"))
	check("claim after an old release", held, err, "b", "y")
	if err := rec.Release(ctx, second); err != nil {
		t.Fatal(err)
	}
	again, err := rec.Claim(ctx, at("c", "z"))
	check("claim after the holder's release", again, err, "c", "z")
	if d, err := rec.Decided(ctx, again); d || err != nil {
		t.Errorf("an undecided key is decided: %v %v", d, err)
	}
	if _, err := b.kv.Create(ctx, shared.DecisionKey(7, "z"), []byte(`{"code":"BOOKED"}`)); err != nil {
		t.Fatal(err)
	}
	if d, err := rec.Decided(ctx, again); !d || err != nil {
		t.Errorf("a decided key is not decided: %v %v", d, err)
	}
}

// TestPlaceOfAPlainBookingIsDecidedByItsRow: a place whose key made a plain
// booking, which has no record in the decisions bucket, is decided by the
// booking's appointment row.
func TestPlaceOfAPlainBookingIsDecidedByItsRow(t *testing.T) {
	b := newBus(t)
	b.keepRows()
	rec, err := b.gateway().Places(t.Context(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pl := gateway.Place{Patient: 7, Doctor: 42, OpensAt: 1, Gateway: "a", Key: "k"}
	if d, err := rec.Decided(t.Context(), pl); d || err != nil {
		t.Errorf("an undecided key is decided: %v %v", d, err)
	}
	b.rows.put(shared.Command{PatientID: 7, IdempotencyKey: "k"}, &shared.Appointment{ID: 70, SlotID: 1, PatientID: 7})
	if d, err := rec.Decided(t.Context(), pl); !d || err != nil {
		t.Errorf("a key whose booking is a row is not decided: %v %v", d, err)
	}
}

// BenchmarkPlaceClaim is what claiming a place costs the gateway and an
// in-process nats-server together: CPU (user + system of the whole test
// process) per claim, each claim a new patient's place, as at an opening.
func BenchmarkPlaceClaim(b *testing.B) {
	rec, err := newBus(b).gateway().Places(context.Background(), time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	before := cpuNow()
	b.ResetTimer()
	for i := range b.N {
		p := gateway.Place{Patient: int64(i + 1), Doctor: 42, OpensAt: 1, Gateway: "gw", Key: "k"}
		if _, err := rec.Claim(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuNow()-before).Microseconds())/float64(b.N), "cpu-µs/claim")
}

// cpuNow is the process's CPU time so far, user and system.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
