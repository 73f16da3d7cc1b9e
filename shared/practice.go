package shared

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Practice is a practice's name and address as the search shows them beside
// its doctors. It travels to a booker in a DoctorRequest, like a doctor.
type Practice struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Street   string `json:"street"`
	Postcode string `json:"postcode"`
	City     string `json:"city"`
}

// Bounds of a practice's fields, in characters.
const (
	MaxPracticeName   = 200
	MaxPracticeStreet = 200
	MaxPracticeCity   = 100
	MaxPostcode       = 10
)

// Validate checks a practice as both binaries must: a positive id, a name
// and a city of at least one character, a postcode of 1 to MaxPostcode
// letters, digits, spaces or hyphens, and no control characters anywhere
// (the address ends up in messages).
func (p Practice) Validate() error {
	switch {
	case p.ID <= 0:
		return NewError(CodeInvalidRequest, "practiceId must be a positive integer")
	case strings.TrimSpace(p.Name) == "" || utf8.RuneCountInString(p.Name) > MaxPracticeName:
		return NewError(CodeInvalidRequest, fmt.Sprintf("name must be 1 to %d characters", MaxPracticeName))
	case utf8.RuneCountInString(p.Street) > MaxPracticeStreet:
		return NewError(CodeInvalidRequest, fmt.Sprintf("street must be at most %d characters", MaxPracticeStreet))
	case strings.TrimSpace(p.City) == "" || utf8.RuneCountInString(p.City) > MaxPracticeCity:
		return NewError(CodeInvalidRequest, fmt.Sprintf("city must be 1 to %d characters", MaxPracticeCity))
	case !ValidPostcode(p.Postcode):
		return NewError(CodeInvalidRequest, fmt.Sprintf("postcode must be 1 to %d letters, digits, spaces or hyphens", MaxPostcode))
	case !printable(p.Name) || !printable(p.Street) || !printable(p.City):
		return NewError(CodeInvalidRequest, "name, street and city must be valid UTF-8 without control characters")
	}
	return nil
}

// ValidPostcode reports whether s is a postcode the practices and the
// search take: 1 to MaxPostcode ASCII letters, digits, spaces or hyphens.
func ValidPostcode(s string) bool {
	if s == "" || len(s) > MaxPostcode {
		return false
	}
	for _, r := range s {
		ok := r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ' ' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}
