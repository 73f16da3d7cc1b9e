package natslive_test

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"termin/shared/natsembed"
	"termin/shared/natslive"
)

// noticeBound is how soon a client must give up a connection to a server
// that stopped answering: two pings unanswered (6 s), or a write blocked
// for natslive.WriteTimeout, with a second to spare on a busy machine.
const noticeBound = 7 * time.Second

// TestACutOffServerIsLeftWhilePublishing cuts the link between a client and
// its server while the client publishes as fast as it can, as the gateway
// does under a burst: the server reads nothing more and answers nothing,
// but the TCP connection stays open, as with a node cut off by the
// network. The client must give the connection up within noticeBound,
// whether it publishes or not. Without the dialer's close on a failed
// write, the publishers' writes into the full socket each held the
// client's lock for natslive.WriteTimeout and the ping timer waited behind
// them for tens of seconds.
func TestACutOffServerIsLeftWhilePublishing(t *testing.T) {
	for _, tc := range []struct {
		name       string
		publishers int
	}{
		{"idle", 0},
		{"publishing", 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			px := newCuttableProxy(t, natsembed.ForTest(t).Addr().String())
			lost := make(chan time.Time, 1)
			opts := append(natslive.Options(), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond),
				nats.DisconnectErrHandler(func(*nats.Conn, error) {
					select {
					case lost <- time.Now():
					default:
					}
				}), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
			nc, err := nats.Connect("nats://"+px.addr(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(nc.Close)
			publish(t, nc, tc.publishers)
			time.Sleep(500 * time.Millisecond) // the socket's buffers grow with the traffic
			cut := time.Now()
			px.cut()
			select {
			case at := <-lost:
				if took := at.Sub(cut); took > noticeBound {
					t.Errorf("the connection to the cut-off server was given up %v after the cut, want at most %v", took, noticeBound)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("the connection to the cut-off server was still up 30 s after the cut, want at most %v", noticeBound)
			}
		})
	}
}

// TestAWriteThatTimesOutClosesTheConnection writes to a server that reads
// nothing until a write times out having sent nothing: nats.go drops such
// a write's bytes and keeps the connection, and a publisher then held the
// client's lock for natslive.WriteTimeout at every flush into the full
// socket while the ping timer waited behind it. The connection
// natslive's dialer makes closes itself instead, so that the client's
// reader fails at once and the client reconnects.
func TestAWriteThatTimesOutClosesTheConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept() // held open, never read
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	c := dial(t, ln.Addr().String())
	chunk := make([]byte, 1<<20)
	for i := 0; ; i++ {
		if err := c.SetWriteDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(chunk); err != nil {
			break
		}
		if i == 1000 {
			t.Fatal("a server that reads nothing took 1 GB")
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second)) // fails once closed, as it should
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("after a write that timed out, a read ends with %v, want the connection closed", err)
	}
}

// TestAWriteToAHostThatStoppedAnsweringBlocksSoon writes small messages,
// as the gateway publishes commands, to a server that reads nothing, until
// a write blocks. A host cut off by the network acknowledges nothing, so
// what a client can write before its first write blocks is its socket's
// send buffer: Linux let that grow to megabytes, seconds of commands at
// 400 a second, and the gateway left a cut node only when a write finally
// timed out, 7.6 s after the cut. A server that reads nothing with a small
// receive window stands in for the cut host here.
func TestAWriteToAHostThatStoppedAnsweringBlocksSoon(t *testing.T) {
	const bound = 512 << 10
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		c, err := ln.Accept() // held open, never read
		if err != nil {
			return
		}
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
		t.Cleanup(func() { _ = c.Close() })
	}()
	c := dial(t, ln.Addr().String())
	msg := make([]byte, 300)
	sent := 0
	for sent <= 64<<20 {
		if err := c.SetWriteDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		n, err := c.Write(msg)
		sent += n
		if err != nil {
			break
		}
	}
	if sent > bound {
		t.Errorf("%d KB written to a server that reads nothing before a write blocked, want at most %d KB", sent>>10, bound>>10)
	}
}

// dial connects to addr with the dialer natslive's options give nats.go.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	o := nats.GetDefaultOptions()
	for _, opt := range natslive.Options() {
		if err := opt(&o); err != nil {
			t.Fatal(err)
		}
	}
	if o.CustomDialer == nil {
		t.Fatal("natslive.Options sets no dialer: a write that times out leaves the connection up")
	}
	c, err := o.CustomDialer.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// publish starts n goroutines publishing 1 KB messages without pause until
// the test ends.
func publish(t *testing.T, nc *nats.Conn, n int) {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	data := make([]byte, 1024)
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if nc.Publish("load", data) != nil {
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
}

// cuttableProxy forwards TCP connections to a server until cut: then it
// reads nothing more from the clients and passes nothing back, leaving
// every connection open.
type cuttableProxy struct {
	ln     net.Listener
	server string
	isCut  atomic.Bool
	cutCh  chan struct{}
	mu     sync.Mutex
	conns  []net.Conn
}

func newCuttableProxy(t *testing.T, server string) *cuttableProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cuttableProxy{ln: ln, server: server, cutCh: make(chan struct{})}
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *cuttableProxy) addr() string { return p.ln.Addr().String() }

// cut stops all traffic, now and on connections made later.
func (p *cuttableProxy) cut() {
	if p.isCut.CompareAndSwap(false, true) {
		close(p.cutCh)
	}
}

func (p *cuttableProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.server)
		if err != nil {
			_ = c.Close()
			continue
		}
		_ = c.(*net.TCPConn).SetReadBuffer(16 << 10) // a small window fills at once
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go p.pipe(s, c) // client to server
		go p.pipe(c, s) // server to client
	}
}

// pipe copies from src to dst until the cut; then it stops reading src
// and waits, holding both open, for the proxy to close.
func (p *cuttableProxy) pipe(dst io.Writer, src io.Reader) {
	buf := make([]byte, 4096)
	for !p.isCut.Load() {
		n, err := src.Read(buf)
		if err != nil || p.isCut.Load() {
			break
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			break
		}
	}
	<-p.cutCh
}

func (p *cuttableProxy) close() {
	p.cut()
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}
