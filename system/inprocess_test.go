package system_test

import "testing"

// The bundle's gateway and booker reach its embedded nats-server in-process:
// a booking's dozen messages then cost no system calls and no loopback
// hops.
func TestBundleReachesItsEmbeddedNATSInProcess(t *testing.T) {
	t.Parallel()
	sys, _, _ := startAsRun(t)
	inProcess, tcp, err := sys.EmbeddedClients()
	if err != nil {
		t.Fatal(err)
	}
	if inProcess < 2 || tcp != 0 {
		t.Fatalf("embedded nats-server has %d in-process and %d TCP clients, want the gateway's and the booker's in-process and none over TCP", inProcess, tcp)
	}
}
