package system

import (
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"termin/shared"
	"termin/shared/natsembed"
)

// StartNATS starts an in-process nats-server with JetStream storing under dir,
// open to every client: for tests on loopback. Port server.RANDOM_PORT (-1)
// picks a free port.
func StartNATS(dir string, port int) (*server.Server, error) {
	return natsembed.Start(natsembed.Loopback(dir, port))
}

// StartSecureNATS starts an in-process nats-server like StartNATS that
// admits only the services' users (ServicePermissions), with passwords made
// now; it returns them by user name.
func StartSecureNATS(dir string, port int, ns shared.Namespace, prefix string) (*server.Server, map[string]string, error) {
	users, passwords, err := natsUsers(ns, prefix)
	if err != nil {
		return nil, nil, err
	}
	opts := natsembed.Loopback(dir, port)
	opts.Users = users
	s, err := natsembed.Start(opts)
	return s, passwords, err
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
