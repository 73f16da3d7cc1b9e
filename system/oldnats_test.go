package system_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
	"termin/shared"
	"termin/shared/clocktest"
	"termin/shared/poll"
	"termin/system"
)

// TestRunsOnTheInstalledNATSServer runs the system on the nats-server
// binary of the machine (Debian bookworm's is 2.9.10), started on a free
// port. The in-process server of the other tests is the newest; an operator's
// may be older, without batched direct gets (2.11), consumers with several
// filters (2.10) or termination reasons (2.10). A booking, its repeat decided
// from the record, a malformed command and a cancellation must all work there.
func TestRunsOnTheInstalledNATSServer(t *testing.T) {
	t.Parallel()
	url := startInstalledNATS(t)
	s := newStackOn(t, url, clocktest.New(t))
	slot := s.slot(42, s.now().Add(24*time.Hour), 1)
	booked := s.mustDo("POST", "/api/appointments", "old-1", bookBody(slot, 1))
	if booked.status != http.StatusCreated {
		t.Fatalf("booking: %d %v, want 201", booked.status, booked.body)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	again := decisionOf(t, s.publishCommand(nc, shared.Command{V: shared.Version, Kind: shared.KindBook,
		SlotID: slot, PatientID: 1, IdempotencyKey: "old-1"}, "past-the-dedupe-window"))
	if again.Code != shared.Booked || !again.Replay || again.Appointment.ID != booked.id() {
		t.Fatalf("the key again, past the gateway: %+v, want its booking %d from the record", again, booked.id())
	}
	if err := nc.Publish(shared.Subject(s.space.Subject("booking"), 42), []byte("not a command")); err != nil {
		t.Fatal(err)
	}
	poll.For(t, 10*time.Second, 20*time.Millisecond, func() error { return s.queueSettled(nc) })
	if a := s.mustDo("DELETE", fmt.Sprintf("/api/appointments/%d", booked.id()), "", nil); a.status != http.StatusNoContent {
		t.Fatalf("cancel: %d %v", a.status, a.body)
	}
	if a := s.mustDo("POST", "/api/appointments", "old-2", bookBody(slot, 2)); a.status != http.StatusCreated {
		t.Fatalf("booking the freed place: %d %v, want 201", a.status, a.body)
	}
}

// queueSettled reports whether the consumer of doctor 42's partition holds
// nothing, neither undelivered nor unacknowledged: a terminated message
// counts as settled, one whose termination the server ignored does not.
func (s *stack) queueSettled(nc *nats.Conn) error {
	js, _ := natsjs.New(nc)
	cons, err := js.Consumer(context.Background(), s.space.Name(shared.StreamName), shared.PartitionConsumer(shared.Partition(42)))
	if err != nil {
		return err
	}
	info, err := cons.Info(context.Background())
	switch {
	case err != nil:
		return err
	case info.NumPending != 0 || info.NumAckPending != 0 || info.Delivered.Stream < 2:
		return fmt.Errorf("consumer: %d pending, %d awaiting ack, %d delivered; want 0, 0, at least 2",
			info.NumPending, info.NumAckPending, info.Delivered.Stream)
	}
	return nil
}

// startInstalledNATS starts the machine's nats-server binary with JetStream
// on a free port, storing under a temporary directory. Without the binary the
// test fails saying what to install, as the database tests do.
func startInstalledNATS(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		bin = "/usr/sbin/nats-server"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal("no nats-server binary installed: install it (Debian: apt-get install nats-server; .ci/run does)")
	}
	version, _ := exec.Command(bin, "--version").Output()
	t.Logf("%s", version)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	poll.For(t, 10*time.Second, 20*time.Millisecond, func() error {
		if !system.Answers(url) {
			return fmt.Errorf("nats-server %s does not answer", url)
		}
		return nil
	})
	return url
}
