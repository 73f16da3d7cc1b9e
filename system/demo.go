package system

import (
	"context"
	"fmt"

	"termin/gateway"
	"termin/gateway/find"
	"termin/shared"
)

// demoDoctors are the demo's doctors, in id order from 1.
var demoDoctors = []struct {
	name, specialty string
	practice        int64
}{
	{"Dr. Anna Weber", "allgemeinmedizin", 1},
	{"Dr. Jonas Becker", "allgemeinmedizin", 1},
	{"Dr. Leyla Yilmaz", "kinderheilkunde", 1},
	{"Dr. Marek Nowak", "innere-medizin", 2},
	{"Dr. Sofia Rossi", "dermatologie", 2},
}

// demoPractices are the demo doctors' practices, which the search shows.
var demoPractices = []shared.Practice{
	{ID: 1, Name: "Praxis am Markt", Street: "Markt 1", Postcode: "10115", City: "Berlin"},
	{ID: 2, Name: "Praxis am Isartor", Street: "Tal 5", Postcode: "80331", City: "München"},
}

// SeedDemo gives five demo doctors a name, a specialty, a practice with an
// address (when doctors can store practices too) and a working plan,
// as an admin's PUT of each would: 15-minute slots from 08:00 to 12:00
// (clinic time) every day, 14 days ahead; odd doctors have one place per
// slot, even ones ten (a vaccination round). Being plans, the days keep
// coming: each morning's opening makes the next one bookable, as for a real
// practice. Seeding again changes nothing but names an admin has changed.
func SeedDemo(ctx context.Context, schedules gateway.Schedules, doctors gateway.DoctorWriter) error {
	if practices, ok := doctors.(find.PracticeWriter); ok {
		for _, p := range demoPractices {
			if _, err := practices.PutPractice(ctx, p); err != nil {
				return fmt.Errorf("seed demo: practice %d: %w", p.ID, err)
			}
		}
	}
	for i, d := range demoDoctors {
		id := int64(i + 1)
		if _, err := doctors.PutDoctor(ctx, shared.Doctor{ID: id, Name: d.name, Specialty: d.specialty, PracticeID: d.practice}); err != nil {
			return fmt.Errorf("seed demo: doctor %d: %w", id, err)
		}
		if _, err := schedules.PutSchedule(ctx, id, demoPlan(id)); err != nil {
			return fmt.Errorf("seed demo: doctor %d: %w", id, err)
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
