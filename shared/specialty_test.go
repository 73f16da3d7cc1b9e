package shared_test

import (
	"testing"

	"termin/shared"
)

// TestEverySpecialtyIsNamedInEveryLanguage: the pages show a specialty by
// its name in their language, and a doctor put with any of its names is
// found by its code.
func TestEverySpecialtyIsNamedInEveryLanguage(t *testing.T) {
	for _, sp := range shared.Specialties {
		for lang, name := range map[string]string{"de": sp.De, "en": sp.En, "tr": sp.Tr} {
			if name == "" {
				t.Errorf("%s has no %s name", sp.Code, lang)
				continue
			}
			if code, ok := shared.SpecialtyCode(name); !ok || code != sp.Code {
				t.Errorf("the %s name %q finds %q, want %s", lang, name, code, sp.Code)
			}
		}
	}
}
