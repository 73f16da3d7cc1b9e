package http_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"termin/gateway"
	gwhttp "termin/gateway/http"
	"termin/shared"
)

// fakeSchedules answers every plan with res and err, and records the doctor.
type fakeSchedules struct {
	res    shared.ScheduleResult
	err    error
	doctor int64
}

func (f *fakeSchedules) PutSchedule(_ context.Context, doctorID int64, _ shared.SchedulePlan) (shared.ScheduleResult, error) {
	f.doctor = doctorID
	return f.res, f.err
}

const plan = `{"slotMinutes":15,"capacity":1,"horizonDays":14,"weekly":[{"day":"MON","from":"08:00","to":"12:00"}],"exceptions":[{"date":"2026-12-24","closed":true}]}`

// putPlan calls the server's handler directly with a PUT of plan.
func putPlan(t *testing.T, schedules gateway.Schedules) resp {
	t.Helper()
	srv, err := gwhttp.NewServer(gwhttp.Config{Bookings: &fakeBookings{}, Reads: &fakeReads{}, Schedules: schedules,
		Auth: noAuth, Registry: prometheus.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("PUT")
	ctx.Request.SetRequestURI("/api/doctors/42/schedule")
	ctx.Request.SetBodyString(plan)
	srv.Handler()(&ctx)
	out := resp{status: ctx.Response.StatusCode(), header: map[string]string{}, body: append([]byte(nil), ctx.Response.Body()...)}
	for k, v := range ctx.Response.Header.All() {
		out.header[string(k)] = string(v)
	}
	return out
}

func TestPutScheduleAnswers(t *testing.T) {
	t.Run("created and kept only", func(t *testing.T) {
		f := &fakeSchedules{res: shared.ScheduleResult{V: 1, SlotsCreated: 16, SlotsKept: 3}}
		expectJSON(t, putPlan(t, f), 200, `{"slotsCreated":16,"slotsKept":3}`)
		if f.doctor != 42 {
			t.Errorf("doctor = %d, want 42", f.doctor)
		}
	})
	t.Run("with conflicts and withdrawals", func(t *testing.T) {
		f := &fakeSchedules{res: shared.ScheduleResult{V: 1, SlotsKept: 8, SlotsWithdrawn: 7, SlotsBlocked: 1,
			Conflicts: []shared.ScheduleConflict{{SlotID: 1001, StartAt: "2026-10-19T09:00:00Z", Booked: 1}}}}
		expectJSON(t, putPlan(t, f), 200, `{"slotsCreated":0,"slotsKept":8,"slotsWithdrawn":7,"slotsBlocked":1,
            "conflicts":[{"slotId":1001,"startAt":"2026-10-19T09:00:00Z","booked":1}]}`)
	})
	t.Run("no booker answers", func(t *testing.T) {
		r := putPlan(t, &fakeSchedules{err: fmt.Errorf("%w: no booker is running", gateway.ErrUnavailable)})
		expectProblem(t, r, 503, "UNAVAILABLE")
		if r.header["Retry-After"] == "" {
			t.Error("503 without Retry-After")
		}
	})
	t.Run("no schedule service wired", func(t *testing.T) {
		expectProblem(t, putPlan(t, nil), 503, "UNAVAILABLE")
	})
	t.Run("the booker refuses the plan", func(t *testing.T) {
		p := expectProblem(t, putPlan(t, &fakeSchedules{err: shared.NewError(shared.CodeInvalidRequest, "horizonDays 0: want 1 to 60")}), 400, "INVALID_REQUEST")
		if p.Detail != "horizonDays 0: want 1 to 60" {
			t.Errorf("detail = %q, want the booker's", p.Detail)
		}
	})
}
