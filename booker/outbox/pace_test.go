package outbox_test

import (
	"fmt"
	"testing"
	"time"

	"termin/booker/outbox"
	"termin/shared/poll"
)

// At rest the relay's pause doubles up to Rest: a round every Idle was ten
// rounds a second of BEGIN, claim and ROLLBACK for nothing.
func TestRelayAtRestAsksTheDatabaseRarely(t *testing.T) {
	e := newEnv(t)
	r := e.relay() // Idle 10 ms
	r.Rest = 200 * time.Millisecond
	stop := start(t, r.Run)
	time.Sleep(time.Second) // the span looked at, not a wait for a condition
	stop()
	// Pauses of 10, 20, 40, 80, 160 and then 200 ms: about nine rounds in a
	// second, where a pause of Idle after every round makes about a hundred.
	if n := outbox.Rounds(r); n < 3 || n > 15 {
		t.Errorf("%d rounds in a second at rest, want 3 to 15", n)
	}
}

// A wake ends a rest: the booking's event goes now, not at its end.
func TestWakeEndsARest(t *testing.T) {
	e := newEnv(t)
	r := e.relay()
	r.Idle, r.Rest = time.Minute, time.Minute
	start(t, r.Run)
	poll.For(t, 10*time.Second, 5*time.Millisecond, func() error {
		if n := outbox.Rounds(r); n < 1 {
			return fmt.Errorf("%d rounds so far", n)
		}
		return nil
	})
	e.insertEvents(2, 0) // after its first, empty round: it rests for a minute
	r.Wake()
	e.waitPublishedWithin(5 * time.Second)
	if n := len(e.streamEvents()); n != 2 {
		t.Errorf("%d events on the stream, want 2", n)
	}
}

// Wakes under load do not add rounds: a relay at work keeps its pace.
func TestWakesDoNotHurryARelayAtWork(t *testing.T) {
	e := newEnv(t)
	r := e.relay()
	r.Idle, r.Rest = 300*time.Millisecond, time.Minute
	e.insertEvents(3, 0)
	start(t, r.Run)
	e.waitPublishedWithin(5 * time.Second) // the first round; the pause after it is Idle, not a rest
	for range 20 {
		r.Wake()
		time.Sleep(5 * time.Millisecond)
	}
	if n := outbox.Rounds(r); n > 2 {
		t.Errorf("%d rounds within 100 ms of a round that found rows, want at most 2", n)
	}
}
