package jetstream

import "time"

// maxConfirmWait bounds how long a command waits for its decision before
// its PubAck publish, however far behind the booker is: a command lost on
// its way to the stream is still found out within seconds.
const maxConfirmWait = 10 * time.Second

// learn folds the time one decision took into the queue's running estimate
// (a moving average over about the last eight decisions).
func (q *Queue) learn(took time.Duration) {
	for {
		old := q.lateness.Load()
		next := int64(took)
		if old > 0 {
			next = old + (next-old)/8
		}
		if q.lateness.CompareAndSwap(old, next) {
			return
		}
	}
}

// confirmWait is how long a command sent without a PubAck waits for its
// decision before it is published again with one: ConfirmAfter, or twice
// what decisions take now when the booker is behind. A late decision then
// is explained by the line ahead of it, not by a lost command; when the
// booker falls seconds behind, publishing every waiting command again and
// reading its record spends CPU on commands the stream held all along.
func (q *Queue) confirmWait() time.Duration {
	return max(q.cfg.ConfirmAfter, min(2*time.Duration(q.lateness.Load()), maxConfirmWait))
}
