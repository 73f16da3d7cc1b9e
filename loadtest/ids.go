package loadtest

import "fmt"

// IDs places a run's doctors, patients and keys in a high range derived from
// its seed, far above demo or hand-made rows, so that runs never collide and
// the checks can tell the run's rows from everything else. The generator
// names its keys by it and the scenarios their doctors and patients, so it
// lives here, beneath both.
type IDs struct{ Run int64 }

// NewIDs derives the run's range from its seed.
func NewIDs(seed int64) IDs {
	r := seed % 100_000_000
	if r < 0 {
		r = -r
	}
	return IDs{Run: r}
}

// Doctor is the run's n-th doctor.
func (i IDs) Doctor(n int) int64 { return 1_000_000_000_000 + i.Run*10_000 + int64(n) }

// Patient is the run's n-th patient.
func (i IDs) Patient(n int) int64 { return 10_000_000_000_000 + i.Run*10_000_000 + int64(n) }

// OwnPatient reports whether the patient is one of the run's.
func (i IDs) OwnPatient(p int64) bool { return p >= i.Patient(0) && p < i.Patient(10_000_000) }

// Key is the Idempotency-Key of the run's click number click.
func (i IDs) Key(click int) string {
	return fmt.Sprintf("lt%d-%d", i.Run, click)
}

// Doctors is the inclusive range of the run's doctor ids.
func (i IDs) Doctors() (lo, hi int64) { return i.Doctor(0), i.Doctor(9_999) }

// Patients is the inclusive range of the run's patient ids.
func (i IDs) Patients() (lo, hi int64) { return i.Patient(0), i.Patient(9_999_999) }

// EveryRunsDoctors is the inclusive range of the doctor ids of every run,
// whatever its seed.
func EveryRunsDoctors() (lo, hi int64) {
	return IDs{Run: 0}.Doctor(0), IDs{Run: 99_999_999}.Doctor(9_999)
}
