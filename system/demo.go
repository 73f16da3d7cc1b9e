package system

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"termin/shared"
)

// demoDoctors is how many demo doctors SeedDemo makes.
const demoDoctors = 5

// SeedDemo gives five demo doctors a working plan, as an admin's PUT of the
// schedule would: 15-minute slots from 08:00 to 12:00 (clinic time) every
// day, 14 days ahead; odd doctors have one place per slot, even ones ten (a
// vaccination round). Being plans, the days keep coming: each morning's
// opening makes the next one bookable, as for a real practice. Putting the
// same plans again changes nothing.
func SeedDemo(ctx context.Context, natsURL string, ns shared.Namespace) error {
	nc, err := nats.Connect(natsURL, nats.Name("seed-demo"))
	if err != nil {
		return fmt.Errorf("seed demo: %w", err)
	}
	defer nc.Close()
	for doctor := int64(1); doctor <= demoDoctors; doctor++ {
		if err := putPlan(ctx, nc, ns, doctor, demoPlan(doctor)); err != nil {
			return fmt.Errorf("seed demo: doctor %d: %w", doctor, err)
		}
	}
	return nil
}

func demoPlan(doctor int64) shared.SchedulePlan {
	plan := shared.SchedulePlan{SlotMinutes: 15, Capacity: 1, HorizonDays: 14}
	if doctor%2 == 0 {
		plan.Capacity = 10
	}
	for _, day := range []string{"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"} {
		plan.Weekly = append(plan.Weekly, shared.WeeklyHours{Day: day, From: "08:00", To: "12:00"})
	}
	return plan
}

// putPlan hands the plan to a booker over the subject the gateway uses.
func putPlan(ctx context.Context, nc *nats.Conn, ns shared.Namespace, doctor int64, plan shared.SchedulePlan) error {
	data, err := json.Marshal(shared.ScheduleRequest{V: shared.Version, DoctorID: doctor, Plan: plan})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	msg, err := nc.RequestWithContext(ctx, ns.Subject(shared.ScheduleSubject), data)
	if err != nil {
		return err
	}
	var res shared.ScheduleResult
	if err := json.Unmarshal(msg.Data, &res); err != nil {
		return err
	}
	if res.Code != "" {
		return fmt.Errorf("%s: %s", res.Code, res.Detail)
	}
	return nil
}
