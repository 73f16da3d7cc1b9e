// Package members is the bookers' view of one another: each announces
// itself and the partitions it holds over core NATS, and every booker
// assigns the partitions alike from the members it hears, so that no
// coordinator is needed to share them.
package members

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"termin/shared"
)

// Subject is where bookers announce themselves and the partitions they
// hold, below the namespace.
const Subject = "booker.members"

// Members is the bookers that share the partitions, as this booker hears
// them. Each booker announces itself and the partitions it holds every Beat
// over core NATS; one not heard for Timeout is gone, and one that stops
// says so. Views may disagree for a moment: the server's pin keeps a
// partition with one booker meanwhile, and a view only decides which
// booker asks for which partition.
type Members struct {
	Conn    *nats.Conn
	Subject string
	// ID names this booker among the others, new at every start.
	ID            string
	Beat, Timeout time.Duration
	Log           *slog.Logger

	mu      sync.Mutex
	peers   map[string]peer
	held    []int
	changed chan struct{}
	sub     *nats.Subscription
	now     func() time.Time
}

type peer struct {
	seen time.Time
	held []int
}

// announcement is what a booker says of itself on the members subject.
type announcement struct {
	ID      string `json:"id"`
	Held    []int  `json:"held"`
	Leaving bool   `json:"leaving,omitempty"`
}

// Bounds of what the members subject is trusted with: another booker's
// announcement is read only within them.
const (
	maxAnnouncementBytes = 1024
	maxMemberIDLen       = 64
	maxPeers             = 256
)

// DefaultBeat and DefaultTimeout: a booker that dies is known to be gone,
// and its partitions are taken over, within about two seconds.
const (
	DefaultBeat    = 250 * time.Millisecond
	DefaultTimeout = 2 * time.Second
)

// New makes this booker's view of its peers on conn, in namespace ns.
func New(conn *nats.Conn, ns shared.Namespace, id string, log *slog.Logger) *Members {
	return &Members{Conn: conn, Subject: ns.Subject(Subject), ID: id, Beat: DefaultBeat,
		Timeout: DefaultTimeout, Log: log}
}

// Start listens to the others and announces this booker until ctx ends.
func (m *Members) Start(ctx context.Context) error {
	m.peers, m.changed = map[string]peer{}, make(chan struct{}, 1)
	if m.now == nil {
		m.now = time.Now
	}
	sub, err := m.Conn.Subscribe(m.Subject, m.hear)
	if err != nil {
		return err
	}
	m.sub = sub
	m.announce(false)
	go m.beat(ctx)
	return nil
}

func (m *Members) beat(ctx context.Context) {
	t := time.NewTicker(m.Beat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.announce(false)
			m.expire()
		}
	}
}

// hear takes another booker's announcement, within bounds; a booker new to
// this view is answered at once, so that it learns of this one before its
// first share.
func (m *Members) hear(msg *nats.Msg) {
	a, ok := readAnnouncement(msg.Data)
	if !ok || a.ID == m.ID {
		return
	}
	m.mu.Lock()
	old, known := m.peers[a.ID]
	switch {
	case a.Leaving:
		delete(m.peers, a.ID)
	case known || len(m.peers) < maxPeers:
		m.peers[a.ID] = peer{seen: m.now(), held: a.Held}
	}
	change := a.Leaving || !known || !slices.Equal(old.held, a.Held)
	m.mu.Unlock()
	if !known && !a.Leaving {
		m.announce(false)
	}
	if change {
		m.signal()
	}
}

// readAnnouncement reads an announcement within its bounds.
func readAnnouncement(data []byte) (announcement, bool) {
	var a announcement
	if len(data) > maxAnnouncementBytes || json.Unmarshal(data, &a) != nil {
		return a, false
	}
	if a.ID == "" || len(a.ID) > maxMemberIDLen || len(a.Held) > shared.Partitions {
		return a, false
	}
	for _, p := range a.Held {
		if p < 0 || p >= shared.Partitions {
			return a, false
		}
	}
	return a, true
}

// expire forgets the peers not heard for Timeout.
func (m *Members) expire() {
	m.mu.Lock()
	gone := false
	for id, p := range m.peers {
		if m.now().Sub(p.seen) > m.Timeout {
			delete(m.peers, id)
			gone = true
		}
	}
	m.mu.Unlock()
	if gone {
		m.signal()
	}
}

// Changed is told, without blocking, whenever a booker comes, goes or
// holds other partitions: the pool then shares again.
func (m *Members) Changed() <-chan struct{} { return m.changed }

func (m *Members) signal() {
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

// announce says which partitions this booker holds, or that it leaves.
func (m *Members) announce(leaving bool) {
	m.mu.Lock()
	data, err := json.Marshal(announcement{ID: m.ID, Held: m.held, Leaving: leaving})
	m.mu.Unlock()
	if err == nil {
		err = m.Conn.Publish(m.Subject, data)
	}
	if err != nil {
		m.Log.Debug("announcing this booker", "err", err)
	}
}

// SetHeld records the partitions this booker holds and announces them.
func (m *Members) SetHeld(held []int) {
	m.mu.Lock()
	same := slices.Equal(m.held, held)
	m.held = slices.Clone(held)
	m.mu.Unlock()
	if !same {
		m.announce(false)
	}
}

// Leave says this booker is gone, once it holds nothing any more.
func (m *Members) Leave() {
	m.announce(true)
	if m.sub != nil {
		_ = m.sub.Unsubscribe()
	}
}

// Live is the bookers of this view, this one included, sorted.
func (m *Members) Live() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []string{m.ID}
	for id := range m.peers {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// HeldByOther is whether another booker says it holds partition p.
func (m *Members) HeldByOther(p int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, peer := range m.peers {
		if slices.Contains(peer.held, p) {
			return true
		}
	}
	return false
}
