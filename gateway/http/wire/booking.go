package wire

import (
	"math"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"termin/gateway"
)

// WriteBookingResult answers a booking: 202 for a queued request, 201 with Location for
// a new appointment, 200 for a replay of one.
func WriteBookingResult(ctx *fasthttp.RequestCtx, res gateway.BookingResult) {
	if res.Queued {
		secs := RetryAfterSeconds(res.RetryAfter)
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(secs))
		WriteJSON(ctx, fasthttp.StatusAccepted, QueuedJSON{Status: "QUEUED", Position: res.Position, RetryAfterSeconds: secs})
		return
	}
	status := fasthttp.StatusOK
	if !res.Replay {
		status = fasthttp.StatusCreated
		ctx.Response.Header.Set("Location", "/api/appointments/"+strconv.FormatInt(res.Appointment.ID, 10))
	}
	WriteJSON(ctx, status, ToAppointmentJSON(res.Appointment))
}

// RetryAfterSeconds rounds d up to whole seconds, at least one, since
// Retry-After has no finer unit and 0 would invite an immediate repeat.
func RetryAfterSeconds(d time.Duration) int {
	secs := int(math.Ceil(d.Seconds()))
	return max(secs, 1)
}
