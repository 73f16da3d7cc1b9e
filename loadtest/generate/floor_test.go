package generate_test

import (
	"net"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"github.com/valyala/fasthttp"
	"termin/loadtest/generate"
)

// BenchmarkHarnessFloor measures what the load generator and an HTTP server
// cost together before any booking work: vegeta, as the harness drives it,
// posts bookings at 10,000/s to a fasthttp server that answers 201 at once.
// Both run in this process, so cpu-us/req is their joint CPU per request;
// on a machine whose cores also carry the system under test, this is the
// part of each booking's budget that the measurement itself takes.
//
//	go test -run '^$' -bench HarnessFloor -benchtime 100000x ./loadtest/generate/
func BenchmarkHarnessFloor(b *testing.B) {
	const rate = 10_000
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) {
		c.SetStatusCode(fasthttp.StatusCreated)
		c.SetContentType("application/json")
		c.SetBodyString(`{"id":1,"slotId":2,"patientId":3,"status":"BOOKED","createdAt":"2026-12-02T07:00:00Z"}`)
	}}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Shutdown() })
	target := vegeta.Target{Method: "POST", URL: "http://" + ln.Addr().String() + "/api/appointments",
		Body: []byte(`{"slotId":2,"patientId":3}`), Header: map[string][]string{"Content-Type": {"application/json"}}}
	attacker := vegeta.NewAttacker(vegeta.KeepAlive(true), vegeta.Connections(8000), vegeta.MaxConnections(8000))
	pace := vegeta.ConstantPacer{Freq: rate, Per: time.Second}
	duration := time.Duration(b.N) * time.Second / rate
	b.ResetTimer()
	cpu0, ok := generate.CPUTime(), 0
	for res := range attacker.Attack(vegeta.NewStaticTargeter(target), pace, duration, "floor") {
		if res.Code == fasthttp.StatusCreated {
			ok++
		}
	}
	cpu := generate.CPUTime() - cpu0
	if ok == 0 {
		b.Fatal("no request answered")
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(ok), "cpu-us/req")
	b.ReportMetric(float64(ok)/b.Elapsed().Seconds(), "answered/s")
	b.ReportMetric(0, "ns/op")
}
