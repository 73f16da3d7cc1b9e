package wire

import (
	"time"

	"termin/gateway/find"
)

// PracticeJSON is a practice's name and address.
type PracticeJSON struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Street   string `json:"street"`
	Postcode string `json:"postcode"`
	City     string `json:"city"`
}

// FreeTimeJSON is one of a found doctor's next free times.
type FreeTimeJSON struct {
	SlotID  int64     `json:"slotId"`
	StartAt time.Time `json:"startAt"`
}

// FoundDoctorJSON is one result of a search.
type FoundDoctorJSON struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	Specialty string `json:"specialty"`
	// Address is the doctor's own, where it differs from the practice's.
	Address  string         `json:"address,omitempty"`
	Practice PracticeJSON   `json:"practice"`
	NextFree []FreeTimeJSON `json:"nextFree"`
}

// FoundDoctorsJSON is a page of a search; NextCursor is absent on the last.
type FoundDoctorsJSON struct {
	Doctors    []FoundDoctorJSON `json:"doctors"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// FoundDoctors shapes a page of results; never null lists.
func FoundDoctors(list []find.Result, next string) FoundDoctorsJSON {
	out := FoundDoctorsJSON{Doctors: make([]FoundDoctorJSON, 0, len(list)), NextCursor: next}
	for _, f := range list {
		d := FoundDoctorJSON{ID: f.Doctor.ID, Name: f.Doctor.Name, Specialty: f.Doctor.Specialty, Address: f.Doctor.Address,
			Practice: PracticeJSON{ID: f.Practice.ID, Name: f.Practice.Name, Street: f.Practice.Street,
				Postcode: f.Practice.Postcode, City: f.Practice.City},
			NextFree: make([]FreeTimeJSON, 0, len(f.NextFree))}
		for _, t := range f.NextFree {
			d.NextFree = append(d.NextFree, FreeTimeJSON{SlotID: t.SlotID, StartAt: t.StartAt.UTC()})
		}
		out.Doctors = append(out.Doctors, d)
	}
	return out
}
