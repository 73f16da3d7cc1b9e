// Package natsembed starts nats-servers with JetStream inside the process:
// the one way every module's tests (and `make run`'s single process) get a
// broker of their own, on loopback, storing where they are told. Starting
// one is short but easy to get subtly different (a server not yet accepting
// connections, a store left in the working directory, signals taken from
// the test binary), so it is written once.
package natsembed

import (
	"errors"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ready bounds the wait for a started server to accept connections: ample
// on a loaded machine.
const ready = 10 * time.Second

// Loopback is the options of a nats-server with JetStream on 127.0.0.1:port
// storing under dir, open to every client and leaving the process's
// signals alone. Port server.RANDOM_PORT (-1) picks a free port.
func Loopback(dir string, port int) *server.Options {
	return &server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoSigs: true}
}

// Start starts a nats-server with opts and returns it once it accepts
// connections; one that does not within 10 s is shut down again.
func Start(opts *server.Options) (*server.Server, error) {
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, err
	}
	ns.Start()
	if !ns.ReadyForConnections(ready) {
		ns.Shutdown()
		return nil, errors.New("embedded nats-server not ready after 10 s")
	}
	return ns, nil
}

// TB is what ForTest needs of a test or benchmark (testing.TB has it), so
// that this package, which `make run` links too, does not import testing.
type TB interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// ForTest starts a nats-server with JetStream on a free loopback port,
// storing under a directory of the test's own, and shuts it down when the
// test ends; tune, when given, changes the options first (fsync, no log).
func ForTest(t TB, tune ...func(*server.Options)) *server.Server {
	t.Helper()
	opts := Loopback(t.TempDir(), server.RANDOM_PORT)
	for _, f := range tune {
		f(opts)
	}
	ns, err := Start(opts)
	if err != nil {
		t.Fatalf("nats-server: %v", err)
	}
	t.Cleanup(ns.Shutdown)
	return ns
}
