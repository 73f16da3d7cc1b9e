package http_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"termin/gateway"
	gwhttp "termin/gateway/http"
)

// BenchmarkRefusedClick is what the HTTP layer spends on a click the front
// refuses at once (a slot known to be full), without the socket: the bearer
// token (remembered after the first check), the body, the problem answer, the
// request id, the metrics. At 07:00 nearly every click of a popular doctor is
// one of these, so this is the gateway's cost per request of the burst.
func BenchmarkRefusedClick(b *testing.B) {
	secret := []byte("a-benchmark-secret-of-at-least-32-bytes!")
	books := &fakeBookings{bookFn: func(gateway.BookRequest) (gateway.BookingResult, error) {
		return gateway.BookingResult{}, gateway.ErrSlotFull
	}}
	srv, err := gwhttp.NewServer(gwhttp.Config{Bookings: books, Reads: &fakeReads{},
		Auth: gwhttp.AuthConfig{Secret: secret}, Registry: prometheus.NewRegistry(),
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "77", "role": "patient",
		"exp": time.Now().Add(time.Hour).Unix()}).SignedString(secret)
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.SetRequestURI("/api/appointments")
		ctx.Request.Header.Set("Authorization", "Bearer "+tok)
		ctx.Request.Header.Set("Idempotency-Key", "k-0123456789")
		ctx.Request.Header.SetContentType("application/json")
		ctx.Request.SetBodyString(`{"slotId":1001,"patientId":77}`)
		h(&ctx)
		if ctx.Response.StatusCode() != fasthttp.StatusConflict {
			b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
		ctx.ResetUserValues()
	}
}
