package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"termin/booker"
)

var _ booker.BatchService = (*Store)(nil)

// Decide decides the ops in one transaction; see booker.BatchService. A batch
// that lost a race for one of its keys to a concurrent batch is run again:
// the rerun finds the key decided and answers it as a replay.
//
// A batch that ran into the exclusion constraint on a patient's times (an
// overlap nothing in the batch knew of) is run again carefully: it then reads
// the active times of its patients first and refuses each overlapping request
// on its own, so the constraint never fails the batch as a whole. The common
// batch pays nothing for this.
func (s *Store) Decide(ctx context.Context, ops []booker.Op) ([]booker.Outcome, error) {
	careful := false
	for attempt := 0; ; attempt++ {
		out := make([]booker.Outcome, len(ops))
		err := inTx(ctx, s.pool, func(tx querier) error {
			b := &batch{tx: tx, now: s.Now(), holdTTL: s.holdTTL(), rules: s.Rules, ops: ops, out: out, careful: careful, caps: s.Caps}
			return b.run(ctx)
		})
		err = translate(err)
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, errDoctorBusy) && len(ops) == 1 && ops[0].Book != nil:
			// Only overlapping slot rows of one doctor can get here; no rerun
			// can book this request, and a batch of it alone refuses it.
			return []booker.Outcome{{Err: booker.ErrSlotFull}}, nil
		case errors.Is(err, booker.ErrOverlapping) && len(ops) == 1 && ops[0].Book != nil && attempt == 3:
			return []booker.Outcome{{Err: booker.ErrOverlapping}}, nil
		case (errors.Is(err, booker.ErrOverlapping) || errors.Is(err, errRerunCarefully)) && attempt < 3:
			careful = true
		case retryable(err) && attempt < 3:
			// A deadlock among the exclusion constraints' waits (one patient's
			// bookings of overlapping times in concurrent transactions): the
			// careful rerun finds the survivor committed and refuses what
			// overlaps it.
			careful = true
		case !errors.Is(err, errKeyTaken) || attempt == 3:
			return nil, permanent(err)
		}
	}
}

// batch is one transaction's worth of ops. It costs three round trips
// whatever its size (begin with the read and lock, write, commit), plus one per
// cancellation: everything in between is decided in memory, in op order,
// against the slots it holds locked.
type batch struct {
	tx      querier
	now     time.Time
	holdTTL time.Duration
	rules   booker.CancelRules
	ops     []booker.Op
	out     []booker.Outcome
	known   map[keyID]known    // keys decided before this batch
	decided map[keyID]int      // keys first seen in this batch → op index
	moved   map[keyID]moved    // reschedule keys decided before this batch
	moving  map[keyID]int      // reschedule keys first seen in this batch → op index
	slots   map[int64]*slotRow // every slot the batch touches, locked
	held    map[holding]bool   // who holds a place in those slots
	winners []int
	repeats [][2]int // op index, index of the key's first op in the batch
	// careful is set on a rerun after an exclusion violation or a place
	// freed after an earlier winner of its patient: times holds the active
	// appointments' times of the batch's patients, read first, and each
	// booking is checked against them.
	careful bool
	times   map[int64][]span
	// spans holds the extra slots of winners that take several.
	spans   map[int][]int64
	rerun   bool                     // a place was freed that an earlier winner's overlap check needed
	byStart map[doctorStart]*slotRow // the locked slots by doctor and start, built when a span needs it
	caps    booker.Caps
	ownOps  bool // ops is the batch's own copy, which alternatives may change
	// upcoming counts each batch patient's upcoming appointments, per doctor
	// and in total (doctor 0), as the batch has left them; read only when
	// a cap is on.
	upcoming map[upcomingKey]int
	// insured is each batch patient's insurance, read only when a slot of
	// the batch is reserved for one.
	insured map[int64]string
}

// trips are a batch's round trips to PostgreSQL: what it reads and locks
// before deciding, and what it writes after. The deciding in between, in
// memory and in op order, is the batch's own; the two share its state.
type trips struct{ *batch }

type keyID struct {
	patient int64
	key     string
}

type known struct {
	appt        booker.Appointment
	fingerprint string
}

// slotRow is a locked slot with the places granted by this batch so far.
type slotRow struct {
	id, doctorID             int64
	startAt, endAt           time.Time
	capacity, count, granted int
	closed                   bool
	// insurance reserves the slot for patients of one insurance; "" any.
	insurance string
}

type holding struct{ slot, patient int64 }

// upcomingKey counts a patient's upcoming appointments with one doctor, or
// with all of them when doctor is 0.
type upcomingKey struct{ doctor, patient int64 }

func (b *batch) run(ctx context.Context) error {
	io := trips{b}
	if err := io.read(ctx); err != nil {
		return err
	}
	if err := b.readInsurance(ctx); err != nil {
		return err
	}
	if b.careful {
		if err := io.readTimes(ctx); err != nil {
			return err
		}
	}
	b.decided, b.moving = make(map[keyID]int), make(map[keyID]int)
	for i, op := range b.ops {
		var err error
		switch {
		case op.Book != nil:
			b.book(i)
		case op.Reschedule != nil:
			err = b.reschedule(ctx, i)
		case op.Confirm != 0:
			err = b.confirm(ctx, i)
		default:
			err = b.cancel(ctx, i)
		}
		if err != nil {
			return err
		}
	}
	if b.rerun {
		return errRerunCarefully
	}
	return io.write(ctx)
}

// book decides one booking against the slot as the batch has left it.
func (b *batch) book(i int) {
	req := *b.ops[i].Book
	id := keyID{req.PatientID, req.IdempotencyKey}
	if k, ok := b.known[id]; ok {
		b.out[i] = replay(k.appt, k.fingerprint, req)
		return
	}
	if first, ok := b.decided[id]; ok {
		b.repeats = append(b.repeats, [2]int{i, first}) // answered once the first has its id
		return
	}
	b.decided[id] = i
	if len(req.SlotIDs) > 0 {
		b.bookAlternatives(i)
		return
	}
	sl := b.slots[req.SlotID]
	if b.out[i].Err = b.capped(sl, req.PatientID); b.out[i].Err != nil {
		return
	}
	if !req.Plain() || b.careful {
		b.bookCarefully(i)
	} else if b.out[i].Err = allocate(sl, b.held, req); b.out[i].Err == nil {
		b.win(i, sl, sl.endAt)
	}
	b.count(i)
}

// bookAlternatives gives op i a place in the first of its slots that has
// one, deciding each as a one-slot booking of that slot; the op then names
// the slot it took. When none has a place, the refusal is the most telling
// of theirs: the patient holds one, else one is full, else one has closed,
// else none exists (of the first alternative's doctor).
func (b *batch) bookAlternatives(i int) {
	if !b.ownOps {
		b.ops, b.ownOps = slices.Clone(b.ops), true // the caller's ops stay as they came
	}
	orig := b.ops[i].Book
	var refusal error = booker.ErrSlotNotFound
	var doctor int64
	for _, id := range orig.SlotIDs {
		sl := b.slots[id]
		if sl != nil && doctor == 0 {
			doctor = sl.doctorID
		}
		if sl != nil && sl.doctorID != doctor {
			continue // not one doctor's: as if it did not exist
		}
		if b.out[i].Err = b.capped(sl, orig.PatientID); b.out[i].Err != nil {
			return
		}
		attempt := *orig
		attempt.SlotID = id
		b.ops[i].Book = &attempt
		if b.careful {
			b.bookCarefully(i)
		} else if b.out[i].Err = allocate(sl, b.held, attempt); b.out[i].Err == nil {
			b.win(i, sl, sl.endAt)
		}
		if b.out[i].Err == nil {
			b.count(i)
			return
		}
		if refusalRank(b.out[i].Err) > refusalRank(refusal) {
			refusal = b.out[i].Err
		}
	}
	b.ops[i].Book = orig
	b.out[i] = booker.Outcome{Err: refusal}
}

// capped refuses a booking in the slot that would take the patient past a
// cap on upcoming appointments, or that the slot's insurance does not admit.
func (b *batch) capped(sl *slotRow, patient int64) error {
	if err := b.uninsured(sl, patient); err != nil {
		return err
	}
	if !b.caps.On() || sl == nil {
		return nil
	}
	if b.caps.PerDoctor > 0 && b.upcoming[upcomingKey{sl.doctorID, patient}] >= b.caps.PerDoctor ||
		b.caps.Total > 0 && b.upcoming[upcomingKey{0, patient}] >= b.caps.Total {
		return booker.ErrTooManyAppointments
	}
	return nil
}

// count adds op i's place, if it won one, to the patient's upcoming
// appointments.
func (b *batch) count(i int) {
	if b.out[i].Err == nil && b.caps.On() {
		bk := b.out[i].Booking
		b.upcoming[upcomingKey{bk.DoctorID, bk.PatientID}]++
		b.upcoming[upcomingKey{0, bk.PatientID}]++
	}
}

func refusalRank(err error) int {
	switch err {
	case booker.ErrAlreadyBooked:
		return 3
	case booker.ErrSlotFull:
		return 2
	case booker.ErrSlotClosed:
		return 1
	}
	return 0
}

// win records op i as a winner whose appointment starts with sl and ends at end.
func (b *batch) win(i int, sl *slotRow, end time.Time) {
	req := b.ops[i].Book
	b.winners = append(b.winners, i)
	a := booker.Appointment{SlotID: req.SlotID, PatientID: req.PatientID, Status: booker.StatusBooked, EndAt: end}
	if req.Hold {
		a.Status, a.ExpiresAt = booker.StatusHeld, b.now.Add(b.holdTTL)
	}
	b.out[i].Booking = booker.Booking{Appointment: a,
		Left: sl.capacity - sl.count - sl.granted, DoctorID: sl.doctorID, StartAt: sl.startAt}
}

// allocate gives the request a place if the slot has one for it.
func allocate(sl *slotRow, held map[holding]bool, req booker.BookRequest) error {
	h := holding{req.SlotID, req.PatientID}
	switch {
	case sl == nil:
		return booker.ErrSlotNotFound
	case sl.closed:
		return booker.ErrSlotClosed
	case held[h]:
		return booker.ErrAlreadyBooked
	case sl.count+sl.granted >= sl.capacity:
		return booker.ErrSlotFull
	}
	sl.granted++
	held[h] = true
	return nil
}

func replay(a booker.Appointment, fingerprint string, req booker.BookRequest) booker.Outcome {
	if fingerprint != req.Fingerprint() {
		return booker.Outcome{Err: booker.ErrKeyReused}
	}
	return booker.Outcome{Booking: booker.Booking{Appointment: a, Replay: true}}
}

// repeatOf answers a key seen earlier in the same batch with that first answer.
func repeatOf(first booker.Outcome, firstReq, req booker.BookRequest) booker.Outcome {
	if firstReq.Fingerprint() != req.Fingerprint() {
		return booker.Outcome{Err: booker.ErrKeyReused}
	}
	if first.Err != nil {
		return first
	}
	return booker.Outcome{Booking: booker.Booking{Appointment: first.Booking.Appointment, Replay: true}}
}

// freeSlots gives places freed inside the batch (a cancellation, an expiry)
// back to the batch's view of the slots, so later requests can take them.
//
// A place freed after an earlier booking of the same patient in this batch
// was granted without looking at the patient's times (the common path leaves
// that to the exclusion constraint, checked only when the batch inserts, by
// which time the freed appointment no longer counts): the batch is then run
// again carefully, so that the booking is judged against the appointment
// still active at its turn, as one-by-one decisions would.
func (b *batch) freeSlots(appt, patient int64, slotIDs ...int64) {
	if !b.careful {
		for _, w := range b.winners {
			if b.ops[w].Book.PatientID == patient {
				b.rerun = true
			}
		}
	}
	for _, id := range slotIDs {
		if sl := b.slots[id]; sl != nil {
			sl.count--
		}
		delete(b.held, holding{id, patient})
	}
	if ts := b.times[patient]; ts != nil {
		b.times[patient] = slices.DeleteFunc(ts, func(t span) bool { return t.appt == appt })
	}
}

// cancel runs a cancellation inside the batch's transaction, in its place in
// the order, and gives the freed place back to the batch's view of the slot.
func (b *batch) cancel(ctx context.Context, i int) error {
	c := booker.Cancellation{Changed: true}
	c.Status = booker.StatusCancelled
	var spanIDs []int64
	err := b.tx.QueryRow(ctx, cancelSQL, b.ops[i].Cancel, b.now.Add(b.rules.Cutoff)).
		Scan(&c.ID, &c.SlotID, &c.PatientID, &c.CreatedAt, &c.Left, &c.DoctorID, &c.StartAt, &spanIDs)
	if errors.Is(err, pgx.ErrNoRows) {
		return b.cancelUnchanged(ctx, i)
	}
	if err != nil {
		return translate(err)
	}
	b.out[i] = booker.Outcome{Cancellation: c}
	b.freeSlots(c.ID, c.PatientID, append(spanIDs, c.SlotID)...)
	if b.caps.On() && c.DoctorID != 0 {
		b.upcoming[upcomingKey{c.DoctorID, c.PatientID}]--
		b.upcoming[upcomingKey{0, c.PatientID}]--
	}
	return nil
}

func (b *batch) cancelUnchanged(ctx context.Context, i int) error {
	a, _, err := scanAppointment(b.tx.QueryRow(ctx, `
        SELECT `+appointmentColumns+` FROM appointment a JOIN time_slot t ON t.id = a.slot_id WHERE a.id = $1`,
		b.ops[i].Cancel))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		b.out[i] = booker.Outcome{Err: booker.ErrAppointmentNotFound}
	case err != nil:
		return err
	case a.Status.Active():
		b.out[i] = booker.Outcome{Err: refusedCancel(b.rules, a, b.now)}
	default:
		b.out[i] = booker.Outcome{Cancellation: booker.Cancellation{Appointment: a}}
	}
	return nil
}

// refusedCancel is why an active appointment's cancel or move matched no row.
func refusedCancel(rules booker.CancelRules, a booker.Appointment, now time.Time) error {
	if err := rules.Check(a.StartAt, now); err != nil {
		return err
	}
	return booker.ErrAppointmentPast
}
