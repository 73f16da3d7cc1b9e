package system_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/gateway"
	gatewayapp "termin/gateway/app"
	gwhttp "termin/gateway/http"
	"termin/migrations/pgtest"
	"termin/shared"
	"termin/shared/clocktest"
	"termin/system"

	"github.com/nats-io/nats.go"
)

// startAsRun starts the system as `make run` does: the embedded nats-server
// with the services' users, a development secret and its tokens, the demo.
func startAsRun(t *testing.T) (*system.System, system.DevAuth, shared.Clock) {
	t.Helper()
	dev, err := system.NewDevAuth(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	clock := clocktest.New(t)
	sys, err := system.Start(ctx, system.Config{
		DatabaseURL: pgtest.URL(t), DataDir: t.TempDir(), Logger: quietLogger(), SeedDemo: true,
		Booker: bookerapp.Config{Addr: "127.0.0.1:0", Zone: berlin, Clock: clock, Workers: 2, BatchSize: 50,
			BatchWait: 2 * time.Millisecond, DBConns: 4, Migrate: true, Stream: jetstream.DefaultConfig()},
		Gateway: gatewayapp.Config{Addr: "127.0.0.1:0", Zone: berlin, Clock: clock, ReplyBudget: replyBudget,
			PublishTimeout: 300 * time.Millisecond, ReadConns: 4, SubjectPrefix: "booking", Auth: gwhttp.AuthConfig{Secret: dev.Secret},
			RateLimit: 5, RateWindow: 10 * time.Second, Room: gateway.DefaultRoomConfig(), ListTTL: 2 * time.Second},
	})
	if err != nil {
		t.Fatalf("start system: %v", err)
	}
	t.Cleanup(func() { shutdown(sys.Shutdown) })
	return sys, dev, clock
}

// call sends one request with a bearer token (none when empty) and checks
// its answer against openapi.yaml.
func call(t *testing.T, method, url, token, key, body string) int {
	t.Helper()
	return callInto(t, method, url, token, key, body, nil)
}

// TestRunRefusesStrangers: the stack `make run` starts answers 401 without a
// token and books with the printed patient token, through a NATS server
// that refuses anonymous clients.
func TestRunRefusesStrangers(t *testing.T) {
	t.Parallel()
	sys, dev, clock := startAsRun(t)
	tomorrow := clock.Now().In(berlin).AddDate(0, 0, 1).Format(time.DateOnly)
	slotsURL := fmt.Sprintf("%s/api/doctors/1/slots?date=%s", sys.Gateway.URL(), tomorrow)
	if got := call(t, "GET", slotsURL, "", "", ""); got != 401 {
		t.Errorf("slots without a token: %d, want 401", got)
	}
	slot := listSlotsAs(t, slotsURL, dev.PatientToken)[0].ID
	body := fmt.Sprintf(`{"slotId":%d,"patientId":%d}`, slot, system.DevPatient)
	for _, c := range []struct {
		token string
		want  int
	}{{"", 401}, {dev.PatientToken, 201}, {dev.PatientToken, 200}} {
		if got := call(t, "POST", sys.Gateway.URL()+"/api/appointments", c.token, "run-1", body); got != c.want {
			t.Errorf("booking (token %v): %d, want %d", c.token != "", got, c.want)
		}
	}
	if _, err := nats.Connect(sys.NATSURL, nats.Timeout(2*time.Second)); err == nil {
		t.Error("an anonymous NATS client was admitted")
	} else if !errors.Is(err, nats.ErrAuthorization) && !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("anonymous NATS client: %v, want an authorization violation", err)
	}
}

// TestRunNATSPermissions: each service's user may use only its own subjects.
func TestRunNATSPermissions(t *testing.T) {
	t.Parallel()
	sys, _, _ := startAsRun(t)
	tests := []struct {
		user, subject string
		subscribe     bool
	}{
		{system.GatewayUser, "slot.state.1", false},
		{system.GatewayUser, "$KV.booking-decisions.77.k1", false},
		{system.GatewayUser, "$JS.API.STREAM.DELETE.BOOKINGS", false},
		{system.GatewayUser, "$JS.API.CONSUMER.MSG.NEXT.BOOKINGS.booker", false},
		{system.GatewayUser, "booking.>", true},
		{system.BookerUser, "booking.1", false},
		{system.BookerUser, "gateway.attempts", false},
	}
	for _, tt := range tests {
		t.Run(tt.user+" "+tt.subject, func(t *testing.T) {
			errs := make(chan error, 4)
			nc, err := nats.Connect(sys.NATSUserURL(tt.user), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
				errs <- err
			}))
			if err != nil {
				t.Fatalf("%s may not connect: %v", tt.user, err)
			}
			defer nc.Close()
			// The server refuses asynchronously: the violation comes on errs.
			if tt.subscribe {
				_, _ = nc.SubscribeSync(tt.subject)
			} else {
				_ = nc.Publish(tt.subject, []byte(`{"slotId":1,"left":0}`))
			}
			_ = nc.Flush()
			select {
			case err := <-errs:
				if !errors.Is(err, nats.ErrPermissionViolation) {
					t.Errorf("error %v, want a permissions violation", err)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("%s was allowed on %s", tt.user, tt.subject)
			}
		})
	}
}

func listSlotsAs(t *testing.T, url, token string) []listedSlot {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	slots := decodeSlots(t, resp)
	if len(slots) == 0 {
		t.Fatal("no slots listed for tomorrow")
	}
	return slots
}
