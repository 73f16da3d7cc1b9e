package system

import (
	"context"
	"fmt"

	"termin/gateway"
	"termin/shared"
)

// demoDoctors is how many demo doctors SeedDemo makes.
const demoDoctors = 5

// SeedDemo gives five demo doctors a working plan through schedules, as an
// admin's PUT of the schedule would: 15-minute slots from 08:00 to 12:00
// (clinic time) every day, 14 days ahead; odd doctors have one place per
// slot, even ones ten (a vaccination round). Being plans, the days keep
// coming: each morning's opening makes the next one bookable, as for a real
// practice. Putting the same plans again changes nothing.
func SeedDemo(ctx context.Context, schedules gateway.Schedules) error {
	for doctor := int64(1); doctor <= demoDoctors; doctor++ {
		if _, err := schedules.PutSchedule(ctx, doctor, demoPlan(doctor)); err != nil {
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
