package notify_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"termin/booker/notify"
	"termin/shared"
)

// verb is a fmt verb of a message text, with its argument index.
var verb = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

// mayBeEmpty are the texts a language may leave empty: English and
// Turkish write a time without a word after it.
var mayBeEmpty = map[string]bool{"clockSuffix": true}

// TestTextsMatchInEveryLanguage: each language a profile may choose has
// every text, none empty, with the same fmt verbs as German's (the date
// formats may pick and order the date's parts as the language writes them).
func TestTextsMatchInEveryLanguage(t *testing.T) {
	if got, want := notify.TextLanguages(), slices.Sorted(slices.Values(shared.Languages)); !slices.Equal(got, want) {
		t.Fatalf("message languages %v, profiles offer %v", got, want)
	}
	de := notify.Texts("de")
	for _, lang := range shared.Languages {
		for field, text := range notify.Texts(lang) {
			switch {
			case text == "" && !mayBeEmpty[field]:
				t.Errorf("%s.%s is empty", lang, field)
			case strings.HasSuffix(field, "DateF"):
			case strings.Contains(text, "|"):
				if n, want := strings.Count(text, "|"), strings.Count(de[field], "|"); n != want {
					t.Errorf("%s.%s has %d words, de %d", lang, field, n+1, want+1)
				}
			case !slices.Equal(verbs(text), verbs(de[field])):
				t.Errorf("%s.%s has verbs %v, de %v", lang, field, verbs(text), verbs(de[field]))
			}
		}
	}
}

func verbs(s string) []string {
	out := verb.FindAllString(s, -1)
	slices.Sort(out)
	return out
}
