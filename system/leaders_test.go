//go:build partition

package system_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// election is a raft group of the cluster seen led by a new node.
type election struct {
	at            time.Time
	group, leader string
}

// leaderWatch watches who leads the booking stream, each of its consumers
// (the partitions') and the decisions bucket, from the test's side of the
// network, and records every change of leader: a cut or a heal may move any
// of them, and bookings stop until each has one.
type leaderWatch struct {
	mu        sync.Mutex
	elections []election
	stop      chan struct{}
	done      chan struct{}
}

// watchLeaders polls every 100 ms until stop.
func watchLeaders(urls string, streams ...string) (*leaderWatch, error) {
	nc, err := nats.Connect(urls, nats.PingInterval(time.Second), nats.MaxPingsOutstanding(2), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		return nil, err
	}
	js, err := natsjs.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	w := &leaderWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer nc.Close()
		last := map[string]string{}
		for {
			for group, leader := range leaders(js, streams) {
				if leader != "" && last[group] != leader {
					if last[group] != "" {
						w.mu.Lock()
						w.elections = append(w.elections, election{at: time.Now(), group: group, leader: leader})
						w.mu.Unlock()
					}
					last[group] = leader
				}
			}
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w, nil
}

// leaders asks for the leaders of the streams and their consumers; a group
// that does not answer within half a second is left out.
func leaders(js natsjs.JetStream, streams []string) map[string]string {
	out := map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	for _, name := range streams {
		s, err := js.Stream(ctx, name)
		if err != nil {
			continue
		}
		if c := s.CachedInfo().Cluster; c != nil {
			out[name] = c.Leader
		}
		list := s.ListConsumers(ctx)
		for ci := range list.Info() {
			if ci.Cluster != nil {
				out[name+"/"+ci.Name] = ci.Cluster.Leader
			}
		}
	}
	return out
}

// lastBetween is the last election in [from, to), or from if none.
func (w *leaderWatch) lastBetween(from, to time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	last := from
	for _, e := range w.elections {
		if !e.at.Before(from) && e.at.Before(to) && e.at.After(last) {
			last = e.at
		}
	}
	return last
}

// describe lists the elections in [from, to) relative to from.
func (w *leaderWatch) describe(from, to time.Time) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var parts []string
	for _, e := range w.elections {
		if !e.at.Before(from) && e.at.Before(to) {
			parts = append(parts, fmt.Sprintf("%s→%s +%v", e.group, e.leader, e.at.Sub(from).Round(100*time.Millisecond)))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// close stops the watch.
func (w *leaderWatch) close() {
	close(w.stop)
	<-w.done
}
