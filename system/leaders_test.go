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

// group is a raft group of the cluster the watch follows: a stream, or
// one of its consumers.
type group struct{ stream, consumer string }

func (g group) String() string {
	if g.consumer == "" {
		return g.stream
	}
	return g.stream + "/" + g.consumer
}

// groupState is what a group's leader says of it: who leads, whether it
// hears a majority of the group, and how it sees each follower. A group no
// leader answers for has no leader.
type groupState struct {
	leader string
	quorum bool
	peers  string
	// pending and ackPending are a consumer's commands not yet delivered
	// and delivered but not yet acknowledged.
	pending, ackPending uint64
}

func (s groupState) String() string {
	if s.leader == "" {
		return "no leader answers"
	}
	q := "quorum"
	if !s.quorum {
		q = "NO quorum"
	}
	return fmt.Sprintf("%s, %s (%s)", s.leader, q, s.peers)
}

// change is a group seen in a new state.
type change struct {
	at    time.Time
	group group
	state groupState
}

// leaderWatch asks, every quarter second and from the test's side of the
// network, each group's leader who leads it and whether it has quorum
// (the stream and consumer info of the JetStream API), and records every
// change: a cut or a heal may move any of them, and bookings stop while
// the stream, a partition's consumer or a bucket has no leader with quorum.
type leaderWatch struct {
	mu      sync.Mutex
	changes []change
	// queue is, each second, the partitions' consumers' commands pending
	// and ack-pending, summed.
	queue []queueSample
	log   *timeline
	stop  chan struct{}
	done  chan struct{}
}

// watchLeaders follows the groups until close, noting each change on log.
func watchLeaders(urls string, groups []group, log *timeline) (*leaderWatch, error) {
	nc, err := nats.Connect(urls, nats.PingInterval(time.Second), nats.MaxPingsOutstanding(2), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond), nats.FlusherTimeout(time.Second))
	if err != nil {
		return nil, err
	}
	js, err := natsjs.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	w := &leaderWatch{log: log, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer nc.Close()
		w.run(js, groups)
	}()
	return w, nil
}

// run polls the groups, each in a goroutine of its own so that one whose
// leader is cut off does not hold up the others, until stop.
func (w *leaderWatch) run(js natsjs.JetStream, groups []group) {
	last := make([]groupState, len(groups))
	for {
		var wg sync.WaitGroup
		now := make([]groupState, len(groups))
		for i, g := range groups {
			wg.Go(func() { now[i] = stateOf(js, g) })
		}
		wg.Wait()
		w.mu.Lock()
		if n := len(w.queue); n == 0 || time.Since(w.queue[n-1].at) >= time.Second {
			q := queueSample{at: time.Now()}
			for i, g := range groups {
				if g.consumer != "" {
					q.pending += now[i].pending
					q.ackPending += now[i].ackPending
				}
			}
			w.queue = append(w.queue, q)
		}
		for i, g := range groups {
			if now[i].leader != last[i].leader || now[i].quorum != last[i].quorum {
				w.changes = append(w.changes, change{at: time.Now(), group: g, state: now[i]})
				w.log.add("%s: %s", g, now[i])
				last[i] = now[i]
			}
		}
		w.mu.Unlock()
		select {
		case <-w.stop:
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// stateOf asks the group's leader for its cluster information; a group
// whose leader does not answer within a second has none.
func stateOf(js natsjs.JetStream, g group) groupState {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if g.consumer == "" {
		s, err := js.Stream(ctx, g.stream)
		if err != nil {
			return groupState{}
		}
		return clusterState(s.CachedInfo().Cluster)
	}
	c, err := js.Consumer(ctx, g.stream, g.consumer)
	if err != nil {
		return groupState{}
	}
	st := clusterState(c.CachedInfo().Cluster)
	st.pending, st.ackPending = c.CachedInfo().NumPending, uint64(c.CachedInfo().NumAckPending)
	return st
}

// clusterState reads a leader's cluster information: it has quorum when
// it and at least half of its followers are current.
func clusterState(ci *natsjs.ClusterInfo) groupState {
	if ci == nil || ci.Leader == "" {
		return groupState{}
	}
	current := 1
	var peers []string
	for _, p := range ci.Replicas {
		how := "current"
		switch {
		case p.Offline:
			how = "offline"
		case !p.Current:
			how = "behind"
		default:
			current++
		}
		peers = append(peers, fmt.Sprintf("%s %s, seen %v ago", p.Name, how, p.Active.Round(100*time.Millisecond)))
	}
	return groupState{leader: ci.Leader, quorum: 2*current > len(ci.Replicas)+1, peers: strings.Join(peers, "; ")}
}

// lastBetween is the last election in [from, to): a group led again after
// a time without a leader that answered, or led by another node. From if
// there was none.
func (w *leaderWatch) lastBetween(from, to time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	last, led := from, map[group]string{}
	for _, c := range w.changes {
		was, seen := led[c.group]
		led[c.group] = c.state.leader
		elected := seen && c.state.leader != "" && c.state.leader != was
		if elected && !c.at.Before(from) && c.at.Before(to) && c.at.After(last) {
			last = c.at
		}
	}
	return last
}

// close stops the watch.
func (w *leaderWatch) close() {
	close(w.stop)
	<-w.done
}

// queueSample is the partitions' commands pending and ack-pending at a time.
type queueSample struct {
	at                  time.Time
	pending, ackPending uint64
}

// describeQueue prints the samples, pending/ack-pending, timed from from.
func (w *leaderWatch) describeQueue(from time.Time) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for _, q := range w.queue {
		fmt.Fprintf(&b, " %+.0fs %d/%d", q.at.Sub(from).Seconds(), q.pending, q.ackPending)
	}
	return b.String()
}
