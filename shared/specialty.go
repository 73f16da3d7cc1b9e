package shared

import "strings"

// Specialty is a medical specialty a doctor is found by: Code is what the
// API and the database store, De and En what the pages show.
type Specialty struct {
	Code string `json:"code"`
	De   string `json:"de"`
	En   string `json:"en"`
}

// Specialties lists every specialty code the search accepts, in the order
// the pages offer them. The migration that introduced codes maps the German
// names stored before to these codes.
var Specialties = []Specialty{
	{"allgemeinmedizin", "Allgemeinmedizin", "General practice"},
	{"innere-medizin", "Innere Medizin", "Internal medicine"},
	{"kinderheilkunde", "Kinder- und Jugendmedizin", "Paediatrics"},
	{"frauenheilkunde", "Frauenheilkunde", "Gynaecology"},
	{"augenheilkunde", "Augenheilkunde", "Ophthalmology"},
	{"hno", "Hals-Nasen-Ohrenheilkunde", "Ear, nose and throat"},
	{"dermatologie", "Dermatologie", "Dermatology"},
	{"orthopaedie", "Orthopädie", "Orthopaedics"},
	{"kardiologie", "Kardiologie", "Cardiology"},
	{"neurologie", "Neurologie", "Neurology"},
	{"psychiatrie", "Psychiatrie", "Psychiatry"},
	{"urologie", "Urologie", "Urology"},
	{"zahnmedizin", "Zahnmedizin", "Dentistry"},
	{"radiologie", "Radiologie", "Radiology"},
}

// SpecialtyCode finds the code of s, which may be a code or a German or
// English name in any case, so that a doctor put with "Kardiologie" is
// found by the code "kardiologie". The empty string is its own code (no
// specialty on record); ok is false for anything else unknown.
func SpecialtyCode(s string) (code string, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true
	}
	for _, sp := range Specialties {
		if strings.EqualFold(s, sp.Code) || strings.EqualFold(s, sp.De) || strings.EqualFold(s, sp.En) {
			return sp.Code, true
		}
	}
	return "", false
}

// IsSpecialty reports whether code is one of Specialties' codes.
func IsSpecialty(code string) bool {
	for _, sp := range Specialties {
		if sp.Code == code {
			return true
		}
	}
	return false
}
