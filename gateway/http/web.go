package http

import (
	"bytes"
	"termin/gateway/http/auth"

	"github.com/valyala/fasthttp"

	"termin/gateway"
	"termin/gateway/web"
)

var assetPrefix = []byte(web.AssetPrefix)

// isWebPath reports whether path is the patient page or one of its files;
// they are served without a token, the API behind them needs one.
func isWebPath(path []byte) bool {
	return string(path) == "/" || string(path) == web.PracticePath || bytes.HasPrefix(path, assetPrefix)
}

// servePage answers the patient page and its files with headers that keep
// them safe (a strict Content-Security-Policy, no sniffing, no framing) and
// cheap to revalidate (ETag; the page's links name each file's hash, so a
// file asked for by its hash may be cached for good). The patient page
// comes in the language the browser's Accept-Language prefers.
func (s *Server) servePage(ctx *fasthttp.RequestCtx, _ auth.Principal, _ []byte) {
	if string(ctx.Path()) == web.SignInPath {
		s.serveSignIn(ctx)
		return
	}
	a, ok := web.LookupFor(string(ctx.Path()), string(ctx.Request.Header.Peek("Accept-Language")))
	if !ok {
		s.fail(ctx, gateway.ErrNotFound)
		return
	}
	h := &ctx.Response.Header
	h.Set("Content-Security-Policy", s.signIn.csp())
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", a.CacheControl(string(ctx.QueryArgs().Peek(web.VersionParam()))))
	h.Set("ETag", a.ETag)
	h.Set("Vary", a.Vary)
	if etagMatches(ctx.Request.Header.Peek("If-None-Match"), a.ETag) {
		h.SetNoDefaultContentType(true)
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.SetContentType(a.ContentType)
	body := a.Body
	if a.Gzip != nil && ctx.Request.Header.HasAcceptEncoding("gzip") {
		h.Set("Content-Encoding", "gzip")
		body = a.Gzip
	}
	ctx.SetBody(body)
}

// etagMatches reads If-None-Match: "*" or a list that names etag.
func etagMatches(header []byte, etag string) bool {
	if len(header) == 0 {
		return false
	}
	for _, part := range bytes.Split(header, []byte(",")) {
		part = bytes.TrimPrefix(bytes.TrimSpace(part), []byte("W/"))
		if string(part) == "*" || string(part) == etag {
			return true
		}
	}
	return false
}
