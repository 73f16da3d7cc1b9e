package jetstream_test

import (
	"testing"

	"termin/shared"
)

func booked(id int64) shared.Decision {
	return shared.Decision{V: shared.Version, Code: shared.Booked, SlotID: 1, Appointment: &shared.Appointment{ID: id}}
}

// TestRecordKeepsTheFirstDecision: the bucket keeps a key's first decision;
// a second booker recording another for the same key gets the first back,
// as a replay, so both answer the client alike.
func TestRecordKeepsTheFirstDecision(t *testing.T) {
	q := newQueue(t, &fakeDecider{})
	key := shared.DecisionKey(7, "k")
	if d, err := q.worker.Record(t.Context(), key, booked(1)); err != nil || d.Appointment.ID != 1 || d.Replay {
		t.Fatalf("first record = %+v, %v; want appointment 1, not a replay", d, err)
	}
	d, err := q.worker.Record(t.Context(), key, booked(2))
	if err != nil || d.Appointment.ID != 1 || !d.Replay {
		t.Fatalf("second record = %+v, %v; want the first decision (appointment 1) as a replay", d, err)
	}
}

// TestRecordedDecisionsReadAlikeBatchedAndOneByOne: the batch's read finds
// exactly the keys on record — not the missing, not the deleted — whether the
// server takes batched direct gets or the worker reads key by key.
func TestRecordedDecisionsReadAlikeBatchedAndOneByOne(t *testing.T) {
	for _, oneByOne := range []bool{false, true} {
		t.Run(map[bool]string{false: "batched", true: "one by one"}[oneByOne], func(t *testing.T) {
			q := newQueue(t, &fakeDecider{})
			if oneByOne {
				q.worker.ReadOneByOne()
			}
			keys := []string{shared.DecisionKey(1, "a"), shared.DecisionKey(2, "b"), shared.DecisionKey(3, "gone"), shared.DecisionKey(4, "never")}
			for i, k := range keys[:3] {
				if _, err := q.worker.Record(t.Context(), k, booked(int64(i+1))); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.kv.Delete(t.Context(), keys[2]); err != nil {
				t.Fatal(err)
			}
			found, err := q.worker.RecordedMany(t.Context(), keys)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != 2 || found[keys[0]].Appointment.ID != 1 || found[keys[1]].Appointment.ID != 2 {
				t.Fatalf("found %+v; want appointments 1 and 2 only", found)
			}
		})
	}
}

// TestBatchRecordsKeepTheFirstDecision: a batch's decisions go on record
// together; a key another booker recorded first ends with that decision as
// a replay, a deleted key is recorded anew, new keys stay new.
func TestBatchRecordsKeepTheFirstDecision(t *testing.T) {
	q := newQueue(t, &fakeDecider{})
	cmds := make([]shared.Command, 4)
	for i := range cmds {
		cmds[i] = shared.Command{Kind: shared.KindBook, PatientID: int64(i + 1), IdempotencyKey: "k", SlotID: 1}
	}
	key := func(i int) string { return shared.DecisionKey(cmds[i].PatientID, "k") }
	if _, err := q.worker.Record(t.Context(), key(1), booked(100)); err != nil {
		t.Fatal(err)
	}
	if _, err := q.worker.Record(t.Context(), key(2), booked(200)); err != nil {
		t.Fatal(err)
	}
	if err := q.kv.Delete(t.Context(), key(2)); err != nil {
		t.Fatal(err)
	}
	got, errs := q.worker.RecordBatch(t.Context(), cmds, []shared.Decision{booked(1), booked(2), booked(3), booked(4)})
	want := []struct {
		id     int64
		replay bool
	}{{1, false}, {100, true}, {3, false}, {4, false}}
	for i, w := range want {
		if errs[i] != nil || got[i].Appointment.ID != w.id || got[i].Replay != w.replay {
			t.Errorf("entry %d = %+v, %v; want appointment %d, replay %v", i, got[i], errs[i], w.id, w.replay)
		}
	}
	found, err := q.worker.RecordedMany(t.Context(), []string{key(0), key(1), key(2), key(3)})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []int64{1, 100, 3, 4} {
		if d, ok := found[key(i)]; !ok || d.Appointment.ID != id {
			t.Errorf("on record for %s: %+v (found %v); want appointment %d", key(i), d, ok, id)
		}
	}
}
