package jetstream_test

import (
	"fmt"
	"testing"
	"time"

	"termin/shared"
	"termin/shared/poll"
)

// TestCommandsOfASilenceReachTheStreamAsFastAsItAnswers: a thousand
// commands sent while the stream gave no answer (its leader cut off) are
// woken together by its first PubAck, and only 64 may be published at once.
// They must reach the stream as fast as it answers, each taking the place
// the one before it left, not 64 a quarter second (which took 4 s for a
// thousand and left the clicks of a NATS node's cut undecided for 8 s).
func TestCommandsOfASilenceReachTheStreamAsFastAsItAnswers(t *testing.T) {
	const n = 1000
	b := newBus(t)
	b.cfg.ConfirmAfter = 100 * time.Millisecond
	b.cfg.PublishTimeout = 200 * time.Millisecond
	b.cfg.MaxWait = time.Minute
	b.cfg.SubjectPrefix = "silent"
	q := b.gateway()
	for i := range n {
		key := fmt.Sprintf("k%d", i)
		if _, err := q.Submit(t.Context(), 42, shared.BookingMsgID(int64(i+1), key), booking(1, int64(i+1), key)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(3 * time.Second) // every command has been published again, unanswered
	b.takeSubjects(b.cfg.Namespace.Subject("silent") + ".>")
	var first time.Time
	poll.For(t, 30*time.Second, 5*time.Millisecond, func() error {
		held := b.streamMsgs()
		if held > 0 && first.IsZero() {
			first = time.Now()
		}
		if held < n {
			return fmt.Errorf("the stream holds %d of %d commands", held, n)
		}
		return nil
	})
	took := time.Since(first)
	t.Logf("from the stream's first command to its %dth: %v", n, took.Round(time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("the stream took %v from its first command to its %dth, want them within 2 s", took.Round(time.Millisecond), n)
	}
}
