package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/booker"
	"termin/booker/people"
	"termin/migrations/pgtest"
	"termin/shared"
)

// freeSlots counts the doctor's slots the search would find free on the
// local day (free_slot rows) and the day's slots in all.
func freeSlots(t *testing.T, pool *pgxpool.Pool, doctorID int64, day string) (free, all int) {
	t.Helper()
	from, to := local(t, day+" 00:00"), local(t, day+" 23:59")
	free = pgtest.QueryInt(t, pool, `SELECT count(*) FROM free_slot WHERE doctor_id = $1 AND start_at BETWEEN $2 AND $3`, doctorID, from, to)
	all = pgtest.QueryInt(t, pool, `SELECT count(*) FROM time_slot WHERE doctor_id = $1 AND start_at BETWEEN $2 AND $3`, doctorID, from, to)
	return free, all
}

// TestDayBlockedBeforeItsSlotsStaysBlocked blocks a day that has no slots
// yet, then writes the plan that covers it: the day's slots are written
// closed, never free, and unblocking the day opens them.
func TestDayBlockedBeforeItsSlotsStaysBlocked(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 06:00")
	practice := people.NewStore(pool, berlin)
	practice.Now = store.now
	day, _ := shared.ParseDate("2026-10-20")
	target := people.BlockTarget{DoctorID: 42, Day: day}
	if _, err := practice.Block(context.Background(), target); err != nil {
		t.Fatal(err)
	}
	mustPut(t, store, 42, weekly(15, 14, "08:00", "12:00", "MON", "TUE", "WED", "THU", "FRI"))
	if free, all := freeSlots(t, pool, 42, "2026-10-20"); free != 0 || all != 16 {
		t.Errorf("blocked day: %d of %d slots free, want 0 of 16", free, all)
	}
	if free, all := freeSlots(t, pool, 42, "2026-10-21"); free != 16 || all != 16 {
		t.Errorf("the next day: %d of %d slots free, want 16 of 16", free, all)
	}
	mustPut(t, store, 42, weekly(15, 14, "08:00", "12:00", "MON", "TUE", "WED", "THU", "FRI"))
	if free, _ := freeSlots(t, pool, 42, "2026-10-20"); free != 0 {
		t.Errorf("the plan put again opened %d slots of the blocked day", free)
	}
	if _, err := practice.Unblock(context.Background(), target); err != nil {
		t.Fatal(err)
	}
	if free, _ := freeSlots(t, pool, 42, "2026-10-20"); free != 16 {
		t.Errorf("unblocked day: %d slots free, want 16", free)
	}
}

// TestFreeSlotFollowsBookingAndCancellation books a slot's last place
// through the booker's own Book and cancels it: the slot leaves free_slot
// in the booking's transaction and is back after the cancellation's.
func TestFreeSlotFollowsBookingAndCancellation(t *testing.T) {
	store, pool := newScheduleStore(t, "2026-10-12 06:00")
	mustPut(t, store, 42, weekly(15, 14, "08:00", "12:00", "MON"))
	slot := slotAt(t, pool, 42, "2026-10-19 11:00")
	isFree := func() bool {
		return pgtest.QueryInt(t, pool, `SELECT count(*) FROM free_slot WHERE slot_id = $1`, slot) == 1
	}
	if !isFree() {
		t.Fatal("a new slot is not free")
	}
	b, err := store.Book(context.Background(), booker.BookRequest{SlotID: slot, PatientID: 7, IdempotencyKey: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if isFree() {
		t.Error("a booked slot is still free")
	}
	if _, err := store.Cancel(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	if !isFree() {
		t.Error("a cancelled slot is not free again")
	}
}
