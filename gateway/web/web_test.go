package web_test

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"termin/gateway/web"
)

// contractCodes are the problem codes of the contract (shared/CONTRACT.md)
// and the gateway's own; the page must explain each in every language.
var contractCodes = []string{
	"INVALID_REQUEST", "PAYLOAD_TOO_LARGE", "HEADERS_TOO_LARGE", "MISSING_IDEMPOTENCY_KEY", "INVALID_IDEMPOTENCY_KEY",
	"SLOT_NOT_FOUND", "SLOT_FULL", "ALREADY_BOOKED", "SLOT_CLOSED", "IDEMPOTENCY_KEY_REUSED",
	"RATE_LIMITED", "UNAVAILABLE", "APPOINTMENT_NOT_FOUND", "APPOINTMENT_PAST", "HOLD_EXPIRED",
	"OVERLAPPING_APPOINTMENT", "APPOINTMENT_CANCELLED", "CANCEL_CUTOFF_PASSED", "DOCTOR_NOT_FOUND", "TOO_MANY_APPOINTMENTS", "APPOINTMENT_NOT_STARTED", "INSURANCE_MISMATCH", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "METHOD_NOT_ALLOWED", "INTERNAL",
}

func asset(t *testing.T, path string) string {
	t.Helper()
	a, ok := web.Lookup(path)
	if !ok {
		t.Fatalf("no asset at %s", path)
	}
	return string(a.Body)
}

// pageTexts are the patient page's texts by language.
func pageTexts(t *testing.T) map[string]map[string]string {
	t.Helper()
	return readCatalogue(t, asset(t, "/assets/i18n.js"), "TerminTexts")
}

func TestEveryProblemCodeHasAMessageInEveryLanguage(t *testing.T) {
	for lang, texts := range pageTexts(t) {
		for _, code := range contractCodes {
			if strings.TrimSpace(texts["problems."+code]) == "" {
				t.Errorf("%s has no message for %s", lang, code)
			}
		}
	}
}

// TestPageNamesOnlyTextsThatExist: each data-t of the page is a text of
// the catalogue (whose languages TestCataloguesMatch compares).
func TestPageNamesOnlyTextsThatExist(t *testing.T) {
	de := pageTexts(t)["de"]
	page := asset(t, "/")
	for _, m := range regexp.MustCompile(`data-t(?:-aria)?="([A-Za-z]+)"`).FindAllStringSubmatch(page, -1) {
		if _, ok := de[m[1]]; !ok {
			t.Errorf("the page names text %q, which i18n.js lacks", m[1])
		}
	}
}

// TestPageHasNoInlineCode: the Content-Security-Policy allows no inline
// script or style, so the page must not need any.
func TestPageHasNoInlineCode(t *testing.T) {
	page := asset(t, "/")
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s+defer)?>`), regexp.MustCompile(`<style`), regexp.MustCompile(`\sstyle="`),
		regexp.MustCompile(`\son[a-z]+="`),
	} {
		if loc := bad.FindStringIndex(page); loc != nil {
			t.Errorf("page has inline code at %d: %q", loc[0], page[loc[0]:loc[1]+20])
		}
	}
	if strings.Contains(web.ContentSecurityPolicy, "unsafe") {
		t.Errorf("policy %q allows unsafe sources", web.ContentSecurityPolicy)
	}
}

// vendoredSHA256 is the hash of static/vendor/oidc-client-ts.min.js as
// VENDOR.md says to make it from the npm package: a changed file must be
// a new version taken the same way, not an edit.
const vendoredSHA256 = "cacca0237e5c2959711767910dd37ea9294b5de5cd815f4dc82c4c7d0f05fa9e"

func TestVendoredLibraryIsAsTaken(t *testing.T) {
	sum := sha256.Sum256([]byte(asset(t, "/assets/vendor/oidc-client-ts.min.js")))
	if got := hex.EncodeToString(sum[:]); got != vendoredSHA256 {
		t.Errorf("oidc-client-ts.min.js has SHA-256 %s, want %s (VENDOR.md)", got, vendoredSHA256)
	}
	for _, page := range []string{"/", web.PracticePath} {
		html := asset(t, page)
		lib, signin := strings.Index(html, "/assets/vendor/oidc-client-ts.min.js"), strings.Index(html, "/assets/signin.js")
		if lib < 0 || signin < lib {
			t.Errorf("%s does not load oidc-client-ts before signin.js", page)
		}
	}
}
