package shared

import "strings"

// Specialty is a medical specialty a doctor is found by: Code is what the
// API and the database store, De, En and Tr what the pages show in German,
// English and Turkish.
type Specialty struct {
	Code string `json:"code"`
	De   string `json:"de"`
	En   string `json:"en"`
	Tr   string `json:"tr"`
}

// Specialties lists every specialty code the search accepts, in the order
// the pages offer them. The migration that introduced codes maps the German
// names stored before to these codes.
var Specialties = []Specialty{
	{"allgemeinmedizin", "Allgemeinmedizin", "General practice", "Aile hekimliği"},
	{"innere-medizin", "Innere Medizin", "Internal medicine", "İç hastalıkları (dahiliye)"},
	{"kinderheilkunde", "Kinder- und Jugendmedizin", "Paediatrics", "Çocuk sağlığı ve hastalıkları"},
	{"frauenheilkunde", "Frauenheilkunde", "Gynaecology", "Kadın hastalıkları ve doğum"},
	{"augenheilkunde", "Augenheilkunde", "Ophthalmology", "Göz hastalıkları"},
	{"hno", "Hals-Nasen-Ohrenheilkunde", "Ear, nose and throat", "Kulak burun boğaz"},
	{"dermatologie", "Dermatologie", "Dermatology", "Cildiye (dermatoloji)"},
	{"orthopaedie", "Orthopädie", "Orthopaedics", "Ortopedi"},
	{"kardiologie", "Kardiologie", "Cardiology", "Kardiyoloji"},
	{"neurologie", "Neurologie", "Neurology", "Nöroloji"},
	{"psychiatrie", "Psychiatrie", "Psychiatry", "Psikiyatri"},
	{"urologie", "Urologie", "Urology", "Üroloji"},
	{"zahnmedizin", "Zahnmedizin", "Dentistry", "Diş hekimliği"},
	{"radiologie", "Radiologie", "Radiology", "Radyoloji"},
}

// SpecialtyCode finds the code of s, which may be a code or a German,
// English or Turkish name in any case, so that a doctor put with "Kardiologie" is
// found by the code "kardiologie". The empty string is its own code (no
// specialty on record); ok is false for anything else unknown.
func SpecialtyCode(s string) (code string, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true
	}
	for _, sp := range Specialties {
		if strings.EqualFold(s, sp.Code) || strings.EqualFold(s, sp.De) || strings.EqualFold(s, sp.En) || strings.EqualFold(s, sp.Tr) {
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
