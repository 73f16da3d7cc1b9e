package http_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	gwhttp "termin/gateway/http"
)

// fuzzServer is a server with fakes whose handler the fuzz targets call
// directly, without a connection.
func fuzzServer(f *testing.F, books *fakeBookings) fasthttp.RequestHandler {
	f.Helper()
	srv, err := gwhttp.NewServer(gwhttp.Config{Bookings: books, Reads: &fakeReads{},
		Auth: gwhttp.AuthConfig{Secret: secret}, Registry: prometheus.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	return srv.Handler()
}

func fuzzToken(f *testing.F, claims jwt.MapClaims) string {
	f.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// FuzzBookingBody: any body is answered 201 or a 4xx problem, never a 500;
// and what reaches the queue is exactly what the body says, positive ids.
func FuzzBookingBody(f *testing.F) {
	for _, seed := range []string{goodBody, `{"slotId":1,"patientId":77,"x":[1,2,{}]}`, `{"slotId":"1","patientId":77}`,
		`{"slotId":1e3,"patientId":77}`, `{"slotId":9223372036854775808,"patientId":77}`, `[]`, ``, `{"slotId":1,"patientId":77}garbage`} {
		f.Add([]byte(seed))
	}
	books := &fakeBookings{}
	handle := fuzzServer(f, books)
	admin := "Bearer " + fuzzToken(f, jwt.MapClaims{"sub": "ops", "role": "admin", "exp": time.Now().Add(time.Hour).Unix()})
	f.Fuzz(func(t *testing.T, body []byte) {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.SetRequestURI("/api/appointments")
		ctx.Request.Header.Set("Idempotency-Key", "fuzz-1")
		ctx.Request.Header.Set("Authorization", admin)
		ctx.Request.SetBody(body)
		before := len(books.bookCalls())
		handle(&ctx)
		status := ctx.Response.StatusCode()
		calls := books.bookCalls()
		switch {
		case status == 201:
			var b struct{ SlotID, PatientID int64 }
			got := calls[len(calls)-1]
			if json.Unmarshal(body, &b) != nil || got.SlotID != b.SlotID || got.PatientID != b.PatientID || got.SlotID <= 0 || got.PatientID <= 0 {
				t.Fatalf("body %q booked %+v", body, got)
			}
		case status == 400 || status == 413:
			if len(calls) != before {
				t.Fatalf("body %q answered %d but reached the queue", body, status)
			}
		default:
			t.Fatalf("body %q answered %d: %s", body, status, ctx.Response.Body())
		}
	})
}

// FuzzBearerToken: any Authorization header is 401 unless it carries a
// token the library itself verifies with the secret; never a 500.
func FuzzBearerToken(f *testing.F) {
	hour := time.Now().Add(time.Hour).Unix()
	for _, seed := range []string{
		fuzzToken(f, jwt.MapClaims{"sub": "77", "role": "patient", "exp": hour}),
		fuzzToken(f, jwt.MapClaims{"sub": "77", "role": "patient", "exp": "9999999999"}),
		fuzzToken(f, jwt.MapClaims{"sub": "77", "role": "admin"}),
		"eyJhbGciOiJub25lIn0.eyJzdWIiOiI3NyIsInJvbGUiOiJhZG1pbiJ9.", "a.b.c", "", strings.Repeat("A", 3000),
	} {
		f.Add("Bearer " + seed)
	}
	handle := fuzzServer(f, &fakeBookings{})
	f.Fuzz(func(t *testing.T, header string) {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("GET")
		ctx.Request.SetRequestURI("/api/appointments/5")
		ctx.Request.Header.Set("Authorization", header)
		handle(&ctx)
		switch status := ctx.Response.StatusCode(); status {
		case 401:
		case 200, 404:
			tok := strings.TrimSpace(header[len("Bearer "):])
			if _, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return secret, nil },
				jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second)); err != nil {
				t.Fatalf("header %q let in (%d) though the token does not verify: %v", header, status, err)
			}
		default:
			t.Fatalf("header %q answered %d", header, status)
		}
	})
}
