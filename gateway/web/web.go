// Package web holds the patient web page the gateway serves at "/": plain
// HTML, CSS and JavaScript embedded in the binary, so that the page needs no
// separate web server and no build step. It knows nothing of HTTP servers;
// the gateway's http package writes an Asset with the headers named here.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
)

// ContentSecurityPolicy allows the page only its own scripts, styles and
// API: no inline script, no other origin, no framing. A token in the page
// is then out of reach of anything injected into it.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; " +
	"img-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; " +
	"form-action 'none'; frame-ancestors 'none'"

// AssetPrefix is where the pages' files are served; "/" is the patient
// page itself, PracticePath the practice's reception desk.
const AssetPrefix = "/assets/"

// PracticePath is where the practice's reception desk (German, English and
// Turkish) is served.
const PracticePath = "/praxis"

// SignInPath is where the pages read how they sign in (the provider's
// issuer and the pages' client id), answered by the gateway from its
// configuration rather than from the embedded files.
const SignInPath = AssetPrefix + "signin.json"

// pages are the HTML files served at a path of their own, not as assets.
var pages = map[string]string{"index.html": "/", "praxis.html": PracticePath}

// Languages are the patient page's languages, German (the default) first.
var Languages = []string{"de", "en", "tr"}

// localized are the pages served in the language a request's
// Accept-Language prefers: their <html lang>, which their script starts
// from until the patient chooses, names it.
var localized = map[string]bool{"/": true}

// servedLang is how a localized page names its language as written; each
// language's copy says its own instead.
const servedLang = `<html lang="de">`

// versionParam is the query parameter that names an asset's content hash in
// the page's links, so that a changed file gets a new URL.
const versionParam = "v"

// Cache-Control values: the page is revalidated every time (it names the
// current assets), an asset asked for by its current hash never changes.
const (
	cacheRevalidate = "no-cache"
	cacheForever    = "public, max-age=31536000, immutable"
)

//go:embed static
var static embed.FS

// Asset is one file of the page, ready to send.
type Asset struct {
	// Body is the file; Gzip the same compressed, nil when that saves little.
	Body, Gzip []byte
	// ContentType includes the charset for text.
	ContentType string
	// ETag is a strong validator of Body, quoted.
	ETag string
	// Version is the content hash the page's links carry.
	Version string
	// Vary names the request headers the answer depends on.
	Vary string
}

// CacheControl is the Cache-Control value for a request that named version:
// asked for by its current hash, an asset can be kept for good.
func (a *Asset) CacheControl(version string) string {
	if version != "" && version == a.Version {
		return cacheForever
	}
	return cacheRevalidate
}

// VersionParam is the query parameter CacheControl's version comes from.
func VersionParam() string { return versionParam }

// assets maps a request path to its asset, languages a localized page's
// path to its copy in each language; built once at start.
var assets, languages = mustLoad()

// Lookup returns the asset served at path: "/" is the page, /assets/NAME one
// of its files.
func Lookup(p string) (*Asset, bool) {
	a, ok := assets[p]
	return a, ok
}

// LookupFor is Lookup for a request with the given Accept-Language header:
// a localized page comes in the language the header prefers.
func LookupFor(p, acceptLanguage string) (*Asset, bool) {
	if copies, ok := languages[p]; ok {
		return copies[Language(acceptLanguage)], true
	}
	return Lookup(p)
}

// mustLoad reads the embedded files, gives each its hash and rewrites the
// page's links to carry them. The files are part of the binary, so a failure
// here is a build defect, not a runtime condition.
func mustLoad() (map[string]*Asset, map[string]map[string]*Asset) {
	out := map[string]*Asset{}
	html := map[string][]byte{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		if _, ok := pages[name]; ok {
			html[name] = body
			return nil
		}
		out[AssetPrefix+name] = newAsset(name, body)
		return nil
	})
	if err != nil || len(html) != len(pages) {
		panic("web: embedded files unreadable or a page missing")
	}
	links := map[string]*Asset{}
	for p, a := range out {
		links[p] = a
	}
	copies := map[string]map[string]*Asset{}
	for name, page := range html {
		for p, a := range links {
			page = bytes.ReplaceAll(page, []byte(`"`+p+`"`), []byte(`"`+p+"?"+versionParam+"="+a.Version+`"`))
		}
		out[pages[name]] = newAsset(name, page)
		if localized[pages[name]] {
			copies[pages[name]] = inLanguages(name, page)
		}
	}
	return out, copies
}

// inLanguages makes a localized page's copy in each language.
func inLanguages(name string, page []byte) map[string]*Asset {
	if !bytes.Contains(page, []byte(servedLang)) {
		panic("web: a localized page lacks " + servedLang)
	}
	out := map[string]*Asset{}
	for _, lang := range Languages {
		a := newAsset(name, bytes.Replace(page, []byte(servedLang), []byte(`<html lang="`+lang+`">`), 1))
		a.Vary = "Accept-Encoding, Accept-Language"
		out[lang] = a
	}
	return out
}

func newAsset(name string, body []byte) *Asset {
	sum := sha256.Sum256(body)
	a := &Asset{Body: body, ContentType: contentType(name), Version: hex.EncodeToString(sum[:6]), Vary: "Accept-Encoding"}
	a.ETag = `"` + hex.EncodeToString(sum[:12]) + `"`
	if z := compress(body); len(z) < len(body)*9/10 {
		a.Gzip = z
	}
	return a
}

// contentTypes is fixed here rather than read from the machine's MIME
// tables, which differ between hosts.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml; charset=utf-8",
}

func contentType(name string) string {
	if ct, ok := contentTypes[path.Ext(name)]; ok {
		return ct
	}
	return "application/octet-stream"
}

func compress(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	return buf.Bytes()
}
