package generate

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Bar is a progress bar that is safe to use when no progress is wanted (a nil
// writer), so that callers need no branches.
type Bar struct {
	pb *progressbar.ProgressBar
	w  io.Writer
}

// NewBar shows a bar of total steps described by what on w; a nil w shows
// none.
func NewBar(w io.Writer, total int64, what string) *Bar {
	if w == nil {
		return &Bar{}
	}
	return &Bar{w: w, pb: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
	)}
}

// Set moves the bar to n steps.
func (b *Bar) Set(n int64) {
	if b.pb != nil {
		_ = b.pb.Set64(n)
	}
}

func (b *Bar) describe(format string, args ...any) {
	if b.pb != nil {
		b.pb.Describe(fmt.Sprintf(format, args...))
	}
}

// stop leaves the bar where it is, for work that ended unfinished.
func (b *Bar) stop() {
	if b.pb != nil {
		_ = b.pb.Exit()
		fmt.Fprintln(b.w)
	}
}

// Finish fills the bar, for work that ended.
func (b *Bar) Finish() {
	if b.pb != nil {
		_ = b.pb.Finish()
		fmt.Fprintln(b.w)
	}
}

// watch shows the run's progress until the returned stop is called: the
// attack's time, then the follow-up of undecided clicks. It also records the
// pacer's offered rate of each second for the chart.
func (e *Engine) watch(pacer vegeta.Pacer) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		sending := NewBar(e.opts.Progress, e.opts.Duration.Milliseconds(), "sending")
		var following *Bar
		var followMax int64
		for {
			select {
			case <-done:
				if following == nil {
					sending.Finish()
				} else if e.ledger.pending() > 0 {
					following.stop()
				} else {
					following.Finish()
				}
				return
			case now := <-t.C:
				elapsed := now.Sub(e.stats.began)
				clicks, told, pending := e.ledger.counts()
				if !e.clicksDone.Load() {
					e.stats.offer(now, pacer.Rate(elapsed))
					sending.Set(min(elapsed.Milliseconds(), e.opts.Duration.Milliseconds()))
					sending.describe("sending: %d clicks, %d booked, %d waiting", clicks, told, pending)
					continue
				}
				if following == nil {
					sending.Set(e.opts.Duration.Milliseconds())
					sending.Finish()
					followMax = int64(pending)
					following = NewBar(e.opts.Progress, max(followMax, 1), "following up queued clicks")
				}
				following.Set(followMax - int64(pending))
			}
		}
	}()
	return func() { close(done); <-finished }
}
