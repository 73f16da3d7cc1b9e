package web_test

import (
	"strings"
	"testing"

	"termin/gateway/web"
)

func TestLanguageFollowsAcceptLanguage(t *testing.T) {
	for header, want := range map[string]string{
		"":                             "de",
		"tr-TR,tr;q=0.9,en;q=0.8":      "tr",
		"en-US,en;q=0.9":               "en",
		"fr-FR,fr;q=0.9":               "de",
		"fr;q=1, en;q=0.5, tr;q=0.7":   "tr",
		"EN-gb":                        "en",
		"de;q=0.2, en;q=0.2":           "de",
		"tr;q=0, en;q=0.1":             "en",
		"tr;q=nonsense, en;q=0.1":      "en",
		"*":                            "de",
		"de-AT, tr-TR;q=0.9, en;q=0.8": "de",
	} {
		if got := web.Language(header); got != want {
			t.Errorf("Accept-Language %q chose %q, want %q", header, got, want)
		}
	}
}

// TestPageComesInTheAcceptedLanguage: the patient page's <html lang> is the
// language Accept-Language prefers, and a cache keeps one copy per header.
func TestPageComesInTheAcceptedLanguage(t *testing.T) {
	etags := map[string]bool{}
	for _, lang := range web.Languages {
		a, ok := web.LookupFor("/", lang+";q=0.9")
		if !ok {
			t.Fatal("no page at /")
		}
		if !strings.Contains(string(a.Body), `<html lang="`+lang+`">`) {
			t.Errorf("the page for %s does not say <html lang=%q>", lang, lang)
		}
		if !strings.Contains(a.Vary, "Accept-Language") {
			t.Errorf("the page for %s varies by %q, want Accept-Language among them", lang, a.Vary)
		}
		etags[a.ETag] = true
	}
	if len(etags) != len(web.Languages) {
		t.Errorf("%d ETags for %d languages", len(etags), len(web.Languages))
	}
	if a, _ := web.LookupFor("/assets/app.js", "tr"); a == nil || strings.Contains(a.Vary, "Accept-Language") {
		t.Errorf("an asset varies by language: %+v", a)
	}
}
