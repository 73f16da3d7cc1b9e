// Package natslive is how the gateway and the booker notice that the NATS
// server they are connected to stopped answering, and move to another node
// of NATS_URL. A node cut off by the network keeps its TCP connections
// open, so nothing else tells the client.
package natslive

import (
	"net"
	"time"

	"github.com/nats-io/nats.go"
)

// WriteTimeout is how long a write to the server may block before the
// connection is given up.
const WriteTimeout = 3 * time.Second

// dialTimeout bounds a connection attempt, as nats.go's own dialer does.
const dialTimeout = 2 * time.Second

// sendBuffer is the socket's send buffer (the kernel doubles it). A write
// blocks only once the buffer is full of bytes the server's host has not
// acknowledged, and a live host acknowledges at once, reading or not; so
// the buffer need hold only what is in flight to a server nearby. Left to
// Linux's tuning it grows to megabytes: after a cut, a gateway sending 400
// commands a second writes into it for seconds before a write blocks and
// times out, and the commands of those seconds stay with the cut node.
const sendBuffer = 32 << 10

// Options notice within about six seconds a server that stopped answering:
// a ping every two seconds, the connection given up after two pings
// unanswered or a write blocked for WriteTimeout. With nats.go's defaults
// (a ping every two minutes, a write blocked up to a minute) a process
// stayed minutes on a cut-off node. Shorter bounds gave up healthy
// connections on a machine whose cores were all busy.
//
// The write bound needs the dialer: nats.go drops what a timed-out write
// did not send and keeps the connection, and a busy publisher (the
// gateway, hundreds of commands a second) then held the connection's lock
// for WriteTimeout at every buffer it flushed into the full socket, so
// that the ping timer waited its turn behind them and the connection to a
// cut-off node stayed up for the whole of a 20 s cut, every command sent
// into it lost.
func Options() []nats.Option {
	return []nats.Option{nats.PingInterval(2 * time.Second), nats.MaxPingsOutstanding(2),
		nats.FlusherTimeout(WriteTimeout), nats.SetCustomDialer(dialer{}), nats.ReconnectOnFlusherError()}
}

// dialer connects over TCP with a small send buffer (sendBuffer) and
// gives the connection up at its first failed write (see conn).
type dialer struct{}

// Dial connects to address within dialTimeout.
func (dialer) Dial(network, address string) (net.Conn, error) {
	c, err := (&net.Dialer{Timeout: dialTimeout}).Dial(network, address)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		if err := tc.SetWriteBuffer(sendBuffer); err != nil {
			_ = c.Close()
			return nil, err
		}
	}
	return conn{c}, nil
}

// conn closes itself when a write fails: whether it timed out having sent
// part of a message or none of it, what the client meant to send is lost
// and the stream of protocol operations broken. Closed, the connection
// fails its pending read at once and the client reconnects; every write
// after it fails at once instead of blocking for WriteTimeout under the
// client's lock.
type conn struct{ net.Conn }

// Write writes p, closing the connection if that fails.
func (c conn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		_ = c.Conn.Close()
	}
	return n, err
}
