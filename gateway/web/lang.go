package web

import (
	"slices"
	"strconv"
	"strings"
)

// Language picks the page's language from an Accept-Language header
// (RFC 9110): the one of Languages the header weighs highest, the earlier
// named on a tie, and German when it names none of them. Only the primary
// subtag counts, so "tr-TR" and "en-US" choose Turkish and English.
func Language(acceptLanguage string) string {
	best, bestQ := Languages[0], 0.0
	for _, part := range strings.Split(acceptLanguage, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		primary, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(tag)), "-")
		if !slices.Contains(Languages, primary) {
			continue
		}
		if q := weight(params); q > bestQ {
			best, bestQ = primary, q
		}
	}
	return best
}

// weight reads a language range's q parameter; a range without one weighs
// 1, one that cannot be read 0 (not acceptable).
func weight(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || strings.ToLower(strings.TrimSpace(k)) != "q" {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || q < 0 || q > 1 {
			return 0
		}
		return q
	}
	return 1
}
