package web_test

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"termin/gateway/web"
)

// praxisLanguages are the practice page's languages, German first.
var praxisLanguages = []string{"de", "en", "tr"}

// praxisTexts reads praxis-texts.js into its languages' key → text maps.
func praxisTexts(t *testing.T) map[string]map[string]string {
	t.Helper()
	src := asset(t, "/assets/praxis-texts.js")
	line := regexp.MustCompile(`(?m)^    ([A-Za-z_]+): '([^'\n]*)',?$`)
	out := map[string]map[string]string{}
	for i, lang := range praxisLanguages {
		from := strings.Index(src, "\n  "+lang+": {")
		to := len(src)
		if i+1 < len(praxisLanguages) {
			to = strings.Index(src, "\n  "+praxisLanguages[i+1]+": {")
		}
		if from < 0 || to < from {
			t.Fatalf("praxis-texts.js has no %s block before the next language", lang)
		}
		out[lang] = map[string]string{}
		for _, m := range line.FindAllStringSubmatch(src[from:to], -1) {
			out[lang][m[1]] = m[2]
		}
	}
	return out
}

// answeredCodes are the problem codes openapi.yaml lists, which the
// gateway's table is held to (wire's TestEveryProblemCodeIsInTheOpenAPIDocument).
func answeredCodes(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)\n    Code:\n.*?enum:\n((?:        - [A-Z_]+\n)+)`).FindSubmatch(doc)
	if block == nil {
		t.Fatal("openapi.yaml has no components.schemas.Code enum")
	}
	var codes []string
	for _, m := range regexp.MustCompile(`- ([A-Z_]+)`).FindAllSubmatch(block[1], -1) {
		codes = append(codes, string(m[1]))
	}
	return codes
}

func TestPracticePageExplainsEveryProblemCodeInEachLanguage(t *testing.T) {
	texts := praxisTexts(t)
	for _, code := range answeredCodes(t) {
		for _, lang := range praxisLanguages {
			if texts[lang][code] == "" {
				t.Errorf("praxis-texts.js has no %s message for %s", lang, code)
			}
		}
	}
}

func TestPracticePageLanguagesHaveTheSameTexts(t *testing.T) {
	texts := praxisTexts(t)
	placeholder := regexp.MustCompile(`\{[a-z]+\}`)
	de := slices.Sorted(maps.Keys(texts["de"]))
	if len(de) < 50 {
		t.Fatalf("only %d German texts read from praxis-texts.js", len(de))
	}
	for _, lang := range praxisLanguages[1:] {
		if keys := slices.Sorted(maps.Keys(texts[lang])); !slices.Equal(keys, de) {
			t.Errorf("the %s texts' keys differ from the German ones:\nde %v\n%s %v", lang, de, lang, keys)
		}
		for _, k := range de {
			want := slices.Sorted(slices.Values(placeholder.FindAllString(texts["de"][k], -1)))
			if got := slices.Sorted(slices.Values(placeholder.FindAllString(texts[lang][k], -1))); !slices.Equal(got, want) {
				t.Errorf("%s.%s has placeholders %v, German %v", lang, k, got, want)
			}
		}
	}
}

// TestPracticePageNamesOnlyTextsItHas: every data-t of praxis.html and every
// t('key') of its scripts is a key of praxis-texts.js.
func TestPracticePageNamesOnlyTextsItHas(t *testing.T) {
	de := praxisTexts(t)["de"]
	used := map[string]string{}
	for _, m := range regexp.MustCompile(`data-t(?:-aria)?="([A-Za-z]+)"`).FindAllStringSubmatch(asset(t, web.PracticePath), -1) {
		used[m[1]] = "praxis.html"
	}
	for _, file := range []string{"praxis.js", "praxis-locale.js", "praxis-view.js", "praxis-caller.js", "praxis-doctors.js"} {
		for _, m := range regexp.MustCompile(`\bt\('([A-Za-z_]+)'`).FindAllStringSubmatch(asset(t, "/assets/"+file), -1) {
			used[m[1]] = file
		}
	}
	if len(used) < 30 {
		t.Fatalf("only %d texts named by the practice page", len(used))
	}
	for key, file := range used {
		if _, ok := de[key]; !ok {
			t.Errorf("%s names text %q, which praxis-texts.js lacks", file, key)
		}
	}
}

// TestPracticePageHasNoInlineCode: the Content-Security-Policy allows no
// inline script or style on the practice page either.
func TestPracticePageHasNoInlineCode(t *testing.T) {
	page := asset(t, web.PracticePath)
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s+defer)?>`), regexp.MustCompile(`<style`), regexp.MustCompile(`\sstyle="`),
		regexp.MustCompile(`\son[a-z]+="`),
	} {
		if loc := bad.FindStringIndex(page); loc != nil {
			t.Errorf("praxis.html has inline code at %d: %q", loc[0], page[loc[0]:loc[1]+20])
		}
	}
}
