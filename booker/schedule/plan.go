// Package schedule turns a doctor's weekly working plan into slots. It is pure
// domain code: no clock and no storage, so that the hard part — local
// wall-clock hours across time zones and daylight-saving days — is decided in
// one place and tested without a database. Plans are validated by the wire
// contract's one parser (shared.ParsePlan), which the gateway runs too.
package schedule

import "termin/shared"

// MaxSlotMinutes and MaxHorizonDays bound a plan (see shared): a slot lasts
// at most that long, and no opening lies further back than the horizon.
const (
	MaxSlotMinutes = shared.MaxSlotMinutes
	MaxHorizonDays = shared.MaxHorizonDays
)

// Range is a working range in minutes after local midnight.
type Range = shared.Range

// Plan is a validated working plan, the form slots are generated from.
type Plan struct{ shared.Plan }

// Parse validates p; a plan it refuses is an INVALID_REQUEST naming the entry.
func Parse(p shared.SchedulePlan) (Plan, error) {
	plan, err := shared.ParsePlan(p)
	return Plan{plan}, err
}
