package system_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	bookerapp "termin/booker/app"
	"termin/booker/jetstream"
	"termin/gateway"
	gatewayapp "termin/gateway/app"
	"termin/migrations/pgtest"
	"termin/shared/clocktest"
	"termin/system"
)

// TestDemoDoctorsComeAsPlans starts the system as `make run` does, with the
// demo seeded: five named doctors with plans, whose days are listed through
// the API with their places; seeding again (the next `make run`) adds nothing.
func TestDemoDoctorsComeAsPlans(t *testing.T) {
	t.Parallel()
	db, dbURL := pgtest.Pool(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	clock := clocktest.New(t)
	sys, err := system.Start(ctx, system.Config{
		DatabaseURL: dbURL, DataDir: t.TempDir(), Logger: quietLogger(), SeedDemo: true,
		Booker: bookerapp.Config{Addr: "127.0.0.1:0", Zone: berlin, Clock: clock, Workers: 2, BatchSize: 50,
			BatchWait: 2 * time.Millisecond, DBConns: 4, Migrate: true, Stream: jetstream.DefaultConfig()},
		Gateway: gatewayapp.Config{Addr: "127.0.0.1:0", Zone: berlin, Clock: clock, ReplyBudget: replyBudget,
			PublishTimeout: 300 * time.Millisecond, ReadConns: 4, SubjectPrefix: "booking", Auth: noAuth,
			RateLimit: 5, RateWindow: 10 * time.Second, Room: gateway.DefaultRoomConfig(), ListTTL: 2 * time.Second},
	})
	if err != nil {
		t.Fatalf("start system: %v", err)
	}
	t.Cleanup(func() { shutdown(sys.Shutdown) })
	tomorrow := clock.Now().In(berlin).AddDate(0, 0, 1).Format(time.DateOnly)
	for doctor, places := range map[int]int{1: 1, 2: 10} {
		slots := listSlots(t, sys.Gateway.URL(), doctor, tomorrow)
		if len(slots) != 16 || slots[0].Capacity != places {
			t.Errorf("doctor %d on %s: %d slots %+v, want 16 of %d places", doctor, tomorrow, len(slots), slots, places)
		}
	}
	count := func(sql string) (n int) {
		if err := db.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count(`SELECT count(*) FROM time_slot`)
	if plans := count(`SELECT count(*) FROM doctor_schedule`); plans != 5 {
		t.Errorf("%d plans stored, want 5", plans)
	}
	if named := count(`SELECT count(*) FROM doctor WHERE name LIKE 'Dr. %' AND specialty <> ''`); named != 5 {
		t.Errorf("%d demo doctors with a name and a specialty, want 5", named)
	}
	if found := count(`SELECT count(*) FROM doctor d JOIN practice p ON p.id = d.practice_id WHERE p.city <> ''`); found != 5 {
		t.Errorf("%d demo doctors in a practice with an address, want 5", found)
	}
	if err := system.SeedDemo(ctx, sys.Gateway.Schedules(), sys.Gateway.Doctors()); err != nil {
		t.Fatal(err)
	}
	if after := count(`SELECT count(*) FROM time_slot`); after != before {
		t.Errorf("seeding again: %d slots, was %d", after, before)
	}
}

type listedSlot struct {
	ID       int64 `json:"id"`
	Capacity int   `json:"capacity"`
}

func listSlots(t *testing.T, base string, doctor int, date string) []listedSlot {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/api/doctors/%d/slots?date=%s", base, doctor, date))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return decodeSlots(t, resp)
}

func decodeSlots(t *testing.T, resp *http.Response) []listedSlot {
	t.Helper()
	var body struct{ Slots []listedSlot }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("list: %d %v", resp.StatusCode, err)
	}
	return body.Slots
}
