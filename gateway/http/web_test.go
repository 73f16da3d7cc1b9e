package http_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestPageIsServedWithoutToken: the page and its files need no token (the
// API they call does), and carry a strict CSP, a content type and cache
// headers.
func TestPageIsServedWithoutToken(t *testing.T) {
	e := newEnv(t, envOptions{secret: []byte("0123456789abcdef0123456789abcdef")})
	page := e.do(t, req{method: "GET", path: "/"})
	expectStatus(t, page, 200)
	if !bytes.Contains(page.body, []byte("<html lang=\"de\">")) {
		t.Fatalf("page body does not start the German page: %.200s", page.body)
	}
	links := regexp.MustCompile(`(?:src|href)="(/assets/[^"?]+)\?v=([0-9a-f]+)"`).FindAllStringSubmatch(string(page.body), -1)
	if len(links) < 5 {
		t.Fatalf("page links %d versioned assets, want the styles, scripts and icon: %s", len(links), page.body)
	}
	tests := []struct{ path, ctype, cache string }{
		{"/", "text/html; charset=utf-8", "no-cache"},
		{links[0][1] + "?v=" + links[0][2], "", "public, max-age=31536000, immutable"},
		{links[0][1], "", "no-cache"},
		{"/assets/app.js?v=" + links[0][2] + "x", "text/javascript; charset=utf-8", "no-cache"},
		{"/assets/app.css", "text/css; charset=utf-8", "no-cache"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := e.do(t, req{method: "GET", path: tt.path})
			expectStatus(t, r, 200)
			csp := r.header["Content-Security-Policy"]
			if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("Content-Security-Policy = %q, want a strict self-only policy", csp)
			}
			if tt.ctype != "" && r.header["Content-Type"] != tt.ctype {
				t.Errorf("Content-Type = %q, want %q", r.header["Content-Type"], tt.ctype)
			}
			if r.header["Cache-Control"] != tt.cache || r.header["Etag"] == "" || r.header["X-Content-Type-Options"] != "nosniff" {
				t.Errorf("headers = %v, want Cache-Control %q, an ETag and nosniff", r.header, tt.cache)
			}
		})
	}
}

func TestPageRevalidatesAndCompresses(t *testing.T) {
	e := newEnv(t, envOptions{})
	plain := e.do(t, req{method: "GET", path: "/assets/app.js"})
	etag := plain.header["Etag"]
	again := e.do(t, req{method: "GET", path: "/assets/app.js", header: map[string]string{"If-None-Match": `"other", ` + etag}})
	if again.status != 304 || len(again.body) != 0 {
		t.Errorf("revalidation with the ETag = %d with %d bytes, want 304 and no body", again.status, len(again.body))
	}
	zipped := e.do(t, req{method: "GET", path: "/assets/app.js", header: map[string]string{"Accept-Encoding": "gzip"}})
	if zipped.header["Content-Encoding"] != "gzip" || len(zipped.body) >= len(plain.body) {
		t.Fatalf("gzip answer: encoding %q, %d bytes vs %d plain", zipped.header["Content-Encoding"], len(zipped.body), len(plain.body))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := io.ReadAll(zr); !bytes.Equal(body, plain.body) {
		t.Error("the gzip answer does not unpack to the file")
	}
	for _, path := range []string{"/assets/", "/assets/nope.js", "/assets/../api"} {
		expectProblem(t, e.do(t, req{method: "GET", path: path}), 404, "NOT_FOUND")
	}
	r := e.do(t, req{method: "POST", path: "/"})
	expectProblem(t, r, 405, "METHOD_NOT_ALLOWED")
}

// TestPageSpeaksTheAcceptedLanguage: the patient page comes with the
// <html lang> Accept-Language prefers, a cache told that it varies by it,
// and a revalidation answered for that language's copy.
func TestPageSpeaksTheAcceptedLanguage(t *testing.T) {
	e := newEnv(t, envOptions{})
	for header, lang := range map[string]string{"": "de", "tr-TR,tr;q=0.9,de;q=0.5": "tr", "en-US,en;q=0.9": "en", "fr": "de"} {
		r := e.do(t, req{method: "GET", path: "/", header: map[string]string{"Accept-Language": header}})
		expectStatus(t, r, 200)
		if !bytes.Contains(r.body, []byte(`<html lang="`+lang+`">`)) {
			t.Errorf("Accept-Language %q: the page is not in %s: %.80s", header, lang, r.body)
		}
		if !strings.Contains(r.header["Vary"], "Accept-Language") {
			t.Errorf("Accept-Language %q: Vary = %q", header, r.header["Vary"])
		}
		again := e.do(t, req{method: "GET", path: "/", header: map[string]string{"Accept-Language": header, "If-None-Match": r.header["Etag"]}})
		if again.status != 304 {
			t.Errorf("Accept-Language %q: revalidation = %d, want 304", header, again.status)
		}
	}
	if v := e.do(t, req{method: "GET", path: "/assets/app.js"}).header["Vary"]; v != "Accept-Encoding" {
		t.Errorf("an asset's Vary = %q, want Accept-Encoding alone", v)
	}
}
