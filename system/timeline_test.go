//go:build partition

package system_test

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// timeline is what the partition test saw happen, in order: leaders and
// quorums of the raft groups, and the clients' connections lost and made.
type timeline struct {
	mu      sync.Mutex
	entries []timed
	told    int // entries described already
}

type timed struct {
	at   time.Time
	text string
}

// add notes an event now.
func (l *timeline) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, timed{at: time.Now(), text: fmt.Sprintf(format, args...)})
}

// describe lists the events not described yet, timed from origin, one a
// line.
func (l *timeline) describe(origin time.Time) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.entries[l.told:] {
		fmt.Fprintf(&b, "\n  %+6.1fs %s", e.at.Sub(origin).Seconds(), e.text)
	}
	l.told = len(l.entries)
	if b.Len() == 0 {
		return " none"
	}
	return b.String()
}

// connEvents are the options that note a client's connection lost, made
// again (and to which node) on the timeline.
func (l *timeline) connEvents(client string) []nats.Option {
	return []nats.Option{
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			l.add("%s lost its connection: %v", client, err)
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			l.add("%s connected to %s", client, nc.ConnectedServerName())
		}),
		nats.ConnectHandler(func(nc *nats.Conn) {
			l.add("%s connected to %s", client, nc.ConnectedServerName())
		}),
	}
}
