package system

import (
	"errors"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"termin/shared"
)

// StartNATS starts an in-process nats-server with JetStream storing under dir,
// open to every client: for tests on loopback. Port server.RANDOM_PORT (-1)
// picks a free port.
func StartNATS(dir string, port int) (*server.Server, error) {
	return startNATS(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoSigs: true})
}

// StartSecureNATS starts an in-process nats-server like StartNATS that
// admits only the services' users (ServicePermissions), with passwords made
// now; it returns them by user name.
func StartSecureNATS(dir string, port int, ns shared.Namespace, prefix string) (*server.Server, map[string]string, error) {
	users, passwords, err := natsUsers(ns, prefix)
	if err != nil {
		return nil, nil, err
	}
	s, err := startNATS(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoSigs: true, Users: users})
	return s, passwords, err
}

func startNATS(opts *server.Options) (*server.Server, error) {
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, err
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("embedded nats-server not ready after 10 s")
	}
	return ns, nil
}

// Answers reports whether a NATS server with JetStream answers at url.
func Answers(url string) bool {
	nc, err := nats.Connect(url, nats.Timeout(time.Second))
	if err != nil {
		return false
	}
	defer nc.Close()
	_, err = nc.Request("$JS.API.INFO", nil, time.Second)
	return err == nil
}
