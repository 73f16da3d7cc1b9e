package shared

// ScheduleSubject is the core NATS subject on which the gateway asks a booker
// to apply a doctor's working plan, request-reply. Plans are rare and an
// admin waits for the answer, so a durable stream would add nothing: a lost
// request is a timeout the admin repeats, and applying a plan is idempotent.
const ScheduleSubject = "schedule.put"

// ScheduleQueue is the queue group the bookers answer ScheduleSubject in, so
// that each request is applied by exactly one booker.
const ScheduleQueue = "booker"

// SchedulePlan is a doctor's weekly working plan as the API receives it, the
// booker applies it and the database stores it. Times are local wall-clock
// times ("HH:MM") in the clinic's zone.
type SchedulePlan struct {
	SlotMinutes int                 `json:"slotMinutes"`
	Capacity    int                 `json:"capacity"`
	HorizonDays int                 `json:"horizonDays"`
	Weekly      []WeeklyHours       `json:"weekly"`
	Exceptions  []ScheduleException `json:"exceptions,omitempty"`
}

// WeeklyHours is one working range on a weekday (MON..SUN); several entries
// of one day are several ranges, with breaks between them. SlotMinutes and
// Capacity, when set, make the range a visit type of its own (vaccination
// hours of 5-minute slots for 10 beside 15-minute consultations); unset,
// the plan's apply. Insurance, when set (GKV, PKV, SELF), reserves the
// range's slots for patients of that insurance.
type WeeklyHours struct {
	Day         string `json:"day"`
	From        string `json:"from"`
	To          string `json:"to"`
	SlotMinutes int    `json:"slotMinutes,omitempty"`
	Capacity    int    `json:"capacity,omitempty"`
	Insurance   string `json:"insurance,omitempty"`
}

// ScheduleException replaces the weekly hours of one date: closed, or the
// range From–To (several entries of one date are several ranges).
type ScheduleException struct {
	Date   string `json:"date"`
	Closed bool   `json:"closed,omitempty"`
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
}

// ScheduleRequest asks a booker to apply Plan to the doctor.
type ScheduleRequest struct {
	V        int          `json:"v"`
	DoctorID int64        `json:"doctorId"`
	Plan     SchedulePlan `json:"plan"`
}

// ScheduleConflict is a booked slot the new plan no longer covers: it is
// kept, never moved or deleted, and reported so that the practice can call
// its patients.
type ScheduleConflict struct {
	SlotID  int64  `json:"slotId"`
	StartAt string `json:"startAt"`
	Booked  int    `json:"booked"`
}

// ScheduleResult is the booker's answer to a ScheduleRequest. Code is empty
// on success; otherwise it names the error and Detail says why.
type ScheduleResult struct {
	V              int                `json:"v"`
	Code           Code               `json:"code,omitempty"`
	Detail         string             `json:"detail,omitempty"`
	SlotsCreated   int                `json:"slotsCreated"`
	SlotsKept      int                `json:"slotsKept"`
	SlotsWithdrawn int                `json:"slotsWithdrawn,omitempty"`
	SlotsBlocked   int                `json:"slotsBlocked,omitempty"`
	Conflicts      []ScheduleConflict `json:"conflicts,omitempty"`
}
