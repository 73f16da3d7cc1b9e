package http_test

import (
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"termin/gateway"
	gwhttp "termin/gateway/http"
	"termin/gateway/oidc"
	"termin/gateway/oidc/oidctest"
)

// BenchmarkRefusedClick is what the HTTP layer spends on a click the front
// refuses at once, without the socket: the bearer token (remembered after
// the first check), the body, the problem answer, the request id, the
// metrics. At 07:00 nearly every click of a popular doctor is one of these,
// so this is the gateway's cost per request of the burst. It runs the two
// refusals (a slot known to be full, a patient over its limit) with an HS256
// service token and with the provider's RS256 and ES256 tokens in the same
// run: a provider's token must cost no more per click once it is known.
func BenchmarkRefusedClick(b *testing.B) {
	secret := []byte("a-benchmark-secret-of-at-least-32-bytes!")
	rs, es := oidctest.NewKey(b, "rs", jwt.SigningMethodRS256), oidctest.NewKey(b, "es", jwt.SigningMethodES256)
	p := oidctest.Start(b, rs, es)
	v := oidctest.Verifier(b, oidc.Config{Issuer: p.Issuer(), Audience: apiAudience, Logger: slog.New(slog.DiscardHandler)}, true)
	hs, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "77", "role": "patient",
		"exp": time.Now().Add(time.Hour).Unix()}).SignedString(secret)
	if err != nil {
		b.Fatal(err)
	}
	claims := oidctest.Claims(p.Issuer(), apiAudience, "anna", time.Now())
	tokens := []struct{ name, token string }{{"HS256", hs}, {"RS256", rs.Sign(b, claims, nil)}, {"ES256", es.Sign(b, claims, nil)}}
	refusals := []struct {
		name   string
		err    error
		status int
	}{{"known full", gateway.ErrSlotFull, fasthttp.StatusConflict}, {"limited", gateway.ErrRateLimited, fasthttp.StatusTooManyRequests}}
	for _, r := range refusals {
		h := refusingHandler(b, secret, v, r.err)
		for _, tok := range tokens {
			b.Run(r.name+"/"+tok.name, func(b *testing.B) { refuse(b, h, tok.token, r.status) })
		}
		b.Run(r.name+"/interleaved", func(b *testing.B) { interleave(b, h, tokens, r.status) })
	}
}

// interleave sends one click with each token in turn and reports each
// token's median time per click and its ratio to the first's (HS256): on a
// machine whose load changes during the run, clicks side by side see the
// same load, where runs one after the other do not, and the median leaves
// out the clicks a busy machine stalled.
func interleave(b *testing.B, h fasthttp.RequestHandler, tokens []struct{ name, token string }, status int) {
	var ctx fasthttp.RequestCtx
	took := make([][]time.Duration, len(tokens))
	for b.Loop() {
		for i, tok := range tokens {
			began := time.Now()
			click(b, h, &ctx, tok.token, status)
			took[i] = append(took[i], time.Since(began))
		}
	}
	medians := make([]float64, len(tokens))
	for i, tok := range tokens {
		slices.Sort(took[i])
		medians[i] = float64(took[i][len(took[i])/2].Nanoseconds())
		b.ReportMetric(medians[i], tok.name+"-ns/click")
		if i > 0 {
			b.ReportMetric(medians[i]/medians[0], tok.name+"/HS256")
		}
	}
}

// refusingHandler is a server whose front refuses every booking with err.
func refusingHandler(b *testing.B, secret []byte, v *oidc.Verifier, err error) fasthttp.RequestHandler {
	b.Helper()
	books := &fakeBookings{bookFn: func(gateway.BookRequest) (gateway.BookingResult, error) { return gateway.BookingResult{}, err }}
	srv, e := gwhttp.NewServer(gwhttp.Config{Bookings: books, Reads: &fakeReads{}, People: &fakePeople{},
		Auth: gwhttp.AuthConfig{Secret: secret, Provider: v}, Registry: prometheus.NewRegistry(),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if e != nil {
		b.Fatal(e)
	}
	return srv.Handler()
}

// refuse sends the same click with tok until the benchmark ends.
func refuse(b *testing.B, h fasthttp.RequestHandler, tok string, status int) {
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		click(b, h, &ctx, tok, status)
	}
}

// click sends one booking with tok and checks that it is refused with status.
func click(b *testing.B, h fasthttp.RequestHandler, ctx *fasthttp.RequestCtx, tok string, status int) {
	ctx.Request.Reset()
	ctx.Response.Reset()
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/api/appointments")
	ctx.Request.Header.Set("Authorization", "Bearer "+tok)
	ctx.Request.Header.Set("Idempotency-Key", "k-0123456789")
	ctx.Request.Header.SetContentType("application/json")
	ctx.Request.SetBodyString(`{"slotId":1001}`)
	h(ctx)
	if ctx.Response.StatusCode() != status {
		b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	ctx.ResetUserValues()
}
