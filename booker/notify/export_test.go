package notify

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// TextLanguages are the languages messages can be written in.
func TextLanguages() []string { return slices.Sorted(maps.Keys(languages)) }

// Texts are one language's words by field name; a list of words (days,
// months) is one entry joined by "|".
func Texts(lang string) map[string]string {
	v := reflect.ValueOf(languages[lang])
	out := map[string]string{}
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Slice {
			words := make([]string, f.Len())
			for j := range words {
				words[j] = f.Index(j).String()
			}
			out[v.Type().Field(i).Name] = strings.Join(words, "|")
			continue
		}
		out[v.Type().Field(i).Name] = f.String()
	}
	return out
}
