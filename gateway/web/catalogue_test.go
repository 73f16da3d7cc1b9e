package web_test

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"termin/gateway/web"
)

// catalogues are the pages' text catalogues: a static file and the global
// it sets to {de: {...}, en: {...}, tr: {...}}. One that may not be there
// yet is optional.
var catalogues = []struct {
	file, global string
	optional     bool
}{
	{"i18n.js", "TerminTexts", false},
	{"praxis-texts.js", "TerminPraxisTexts", true},
}

var placeholder = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// TestCataloguesMatch: every catalogue has the page's languages, each with
// the same keys, no empty text, and the same placeholders in a key's text
// in each language, so that no language shows a key, nothing, or a
// "{name}" left unfilled.
func TestCataloguesMatch(t *testing.T) {
	for _, c := range catalogues {
		t.Run(c.file, func(t *testing.T) {
			a, ok := web.Lookup(web.AssetPrefix + c.file)
			if !ok && c.optional {
				t.Logf("%s is not among the pages' files", c.file)
				return
			}
			if !ok {
				t.Fatalf("no file %s", c.file)
			}
			checkCatalogue(t, readCatalogue(t, string(a.Body), c.global))
		})
	}
}

func checkCatalogue(t *testing.T, langs map[string]map[string]string) {
	t.Helper()
	if got := slices.Sorted(maps.Keys(langs)); !slices.Equal(got, slices.Sorted(slices.Values(web.Languages))) {
		t.Fatalf("languages %v, want %v", got, web.Languages)
	}
	de := langs["de"]
	for lang, texts := range langs {
		for key, de := range de {
			text, ok := texts[key]
			switch {
			case !ok:
				t.Errorf("%s lacks %s", lang, key)
			case strings.TrimSpace(text) == "":
				t.Errorf("%s.%s is empty", lang, key)
			case !slices.Equal(placeholders(text), placeholders(de)):
				t.Errorf("%s.%s has placeholders %v, de %v", lang, key, placeholders(text), placeholders(de))
			}
		}
		for key := range texts {
			if _, ok := de[key]; !ok {
				t.Errorf("%s has %s, which de lacks", lang, key)
			}
		}
	}
}

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// readCatalogue reads the object literal assigned to window.GLOBAL as
// language → flat key ("problems.SLOT_FULL") → text.
func readCatalogue(t *testing.T, src, global string) map[string]map[string]string {
	t.Helper()
	i := strings.Index(src, "window."+global+" =")
	if i < 0 {
		t.Fatalf("no window.%s = in the file", global)
	}
	p := &literal{src: src, pos: i + len("window."+global+" =")}
	out := map[string]map[string]string{}
	top, err := p.object("")
	if err != nil {
		t.Fatalf("window.%s: %v", global, err)
	}
	for key, text := range top {
		lang, rest, _ := strings.Cut(key, ".")
		if out[lang] == nil {
			out[lang] = map[string]string{}
		}
		out[lang][rest] = text
	}
	return out
}

// literal reads the part of JavaScript a catalogue is written in: objects
// of names or quoted keys to quoted strings or objects, with comments.
type literal struct {
	src string
	pos int
}

func (p *literal) object(prefix string) (map[string]string, error) {
	out := map[string]string{}
	if !p.take('{') {
		return nil, p.fail("an object")
	}
	for !p.take('}') {
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if !p.take(':') {
			return nil, p.fail("a colon")
		}
		if p.peek() == '{' {
			inner, err := p.object(prefix + key + ".")
			if err != nil {
				return nil, err
			}
			maps.Copy(out, inner)
		} else if out[prefix+key], err = p.str(); err != nil {
			return nil, err
		}
		p.take(',')
	}
	return out, nil
}

func (p *literal) key() (string, error) {
	if c := p.peek(); c == '\'' || c == '"' {
		return p.str()
	}
	start := p.pos
	for p.pos < len(p.src) && (unicode.IsLetter(rune(p.src[p.pos])) || unicode.IsDigit(rune(p.src[p.pos])) || p.src[p.pos] == '_') {
		p.pos++
	}
	if p.pos == start {
		return "", p.fail("a key")
	}
	return p.src[start:p.pos], nil
}

// str reads a quoted string with JavaScript's escapes of quotes and
// backslashes.
func (p *literal) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.fail("a quoted string")
	}
	var b strings.Builder
	for p.pos++; p.pos < len(p.src); p.pos++ {
		switch c := p.src[p.pos]; {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\\' && p.pos+1 < len(p.src):
			p.pos++
			b.WriteByte(p.src[p.pos])
		default:
			b.WriteByte(c)
		}
	}
	return "", p.fail("the end of a string")
}

// peek skips space and comments and returns the next character.
func (p *literal) peek() byte {
	for p.pos < len(p.src) {
		switch rest := p.src[p.pos:]; {
		case rest[0] == ' ' || rest[0] == '\n' || rest[0] == '\t' || rest[0] == '\r':
			p.pos++
		case strings.HasPrefix(rest, "//"):
			p.pos += strings.IndexByte(rest+"\n", '\n')
		case strings.HasPrefix(rest, "/*"):
			p.pos += strings.Index(rest+"*/", "*/") + 2
		default:
			return rest[0]
		}
	}
	return 0
}

func (p *literal) take(c byte) bool {
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

func (p *literal) fail(want string) error {
	line := strings.Count(p.src[:min(p.pos, len(p.src))], "\n") + 1
	return fmt.Errorf("line %s: want %s", strconv.Itoa(line), want)
}
