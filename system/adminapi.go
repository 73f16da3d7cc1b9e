package system

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"termin/shared"
)

// adminAPI puts doctors and working plans through a gateway's HTTP API, as
// an admin's client does: the demo's seeding when the gateway runs in a
// process of its own.
type adminAPI struct {
	base, token string
}

// PutDoctor implements gateway.DoctorWriter.
func (a *adminAPI) PutDoctor(ctx context.Context, d shared.Doctor) (shared.Doctor, error) {
	var out shared.Doctor
	body := map[string]any{"name": d.Name, "specialty": d.Specialty, "practiceId": d.PracticeID}
	return out, a.put(ctx, "/api/doctors/"+strconv.FormatInt(d.ID, 10), body, &out)
}

// PutPractice implements gateway.PracticeWriter.
func (a *adminAPI) PutPractice(ctx context.Context, p shared.Practice) (shared.Practice, error) {
	var out shared.Practice
	body := map[string]string{"name": p.Name, "street": p.Street, "postcode": p.Postcode, "city": p.City}
	return out, a.put(ctx, "/api/practices/"+strconv.FormatInt(p.ID, 10), body, &out)
}

// PutSchedule implements gateway.Schedules.
func (a *adminAPI) PutSchedule(ctx context.Context, doctorID int64, plan shared.SchedulePlan) (shared.ScheduleResult, error) {
	var out shared.ScheduleResult
	return out, a.put(ctx, "/api/doctors/"+strconv.FormatInt(doctorID, 10)+"/schedule", plan, &out)
}

func (a *adminAPI) put(ctx context.Context, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, a.base+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("PUT %s: %s: %s", path, resp.Status, raw)
	}
	return json.Unmarshal(raw, out)
}
