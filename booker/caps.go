package booker

// Caps bounds the upcoming (not yet started) BOOKED appointments a patient
// may hold, with one doctor and in total, so that one account cannot take a
// doctor's whole day. A booking past a cap is refused with
// ErrTooManyAppointments. Zero turns a cap off; checking costs one
// more query in a batch's first round trip, and nothing when both are off.
type Caps struct {
	PerDoctor int
	Total     int
}

// DefaultCaps are the caps of a booker started with default settings: two
// upcoming appointments with one doctor and eight in all are more than a
// patient needs, and far fewer than a bot reselling a doctor's day takes.
var DefaultCaps = Caps{PerDoctor: 2, Total: 8}

// On says whether either cap is set: counting costs one more query in a
// batch, which a booker without caps does not pay.
func (c Caps) On() bool { return c.PerDoctor > 0 || c.Total > 0 }
