package system

import "github.com/nats-io/nats-server/v2/server"

// EmbeddedClients counts the embedded nats-server's client connections by
// how they reach it: in-process (a pipe, no address) or over TCP. Both are 0
// when the system uses a server of its own.
func (s *System) EmbeddedClients() (inProcess, tcp int, err error) {
	if s.nats == nil {
		return 0, 0, nil
	}
	conns, err := s.nats.Connz(&server.ConnzOptions{Limit: 1024})
	if err != nil {
		return 0, 0, err
	}
	for _, c := range conns.Conns {
		if c.IP == "" {
			inProcess++
		} else {
			tcp++
		}
	}
	return inProcess, tcp, nil
}
