package system_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"termin/gateway/token"
	"termin/shared/poll"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// asPatient sends a request to the page's gateway with the patient's own
// token, as the page does, and returns the status and the body as sent.
func (w *webStack) asPatient(t *testing.T, patient int64, method, path string, body []byte) (int, []byte) {
	t.Helper()
	tok, err := token.Sign(w.secret, strconv.FormatInt(patient, 10), "patient", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, w.page.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// downloadsInto lets the tab's downloads land in dir, as a browser asked
// where to save them would put them.
func (p *tab) downloadsInto(dir string) {
	p.t.Helper()
	p.run("allow downloads", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
		return err
	}))
}

// downloadExport clicks "Meine Daten herunterladen" in my details and
// returns the file the browser saved, once it is whole.
func (p *tab) downloadExport() []byte {
	p.t.Helper()
	dir := p.t.TempDir()
	p.downloadsInto(dir)
	p.click("#nav-profile")
	p.waitFor("my details", profileLoaded)
	p.click("#pf-export")
	var raw []byte
	poll.For(p.t, pageTimeout, 100*time.Millisecond, func() error {
		var err error
		if raw, err = os.ReadFile(filepath.Join(dir, "termin-export.json")); err != nil || !json.Valid(raw) {
			return errors.Join(errors.New("no whole termin-export.json yet"), err)
		}
		return nil
	})
	return raw
}

// exportsTheProfile: "Meine Daten herunterladen" saves termin-export.json,
// a JSON document with the patient's profile and appointments as the API's
// export gives them.
func exportsTheProfile(t *testing.T, w *webStack, browser context.Context, patient int64) {
	t.Helper()
	profile := []byte(`{"name":"Ida Muster","email":"ida@example.org","language":"de","consent":{"email":true,"sms":false}}`)
	if status, raw := w.asPatient(t, patient, "PUT", "/api/patients/me", profile); status != http.StatusOK {
		t.Fatalf("the profile: %d %s", status, raw)
	}
	booked := w.postAs(patient, w.slot(45, tomorrowAt(8, 30), 1), "export-booking")
	if booked.status != http.StatusCreated {
		t.Fatalf("the booking: %d %v", booked.status, booked.body)
	}
	p := openAs(t, w, browser, patient)
	raw := p.downloadExport()
	var got, want map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("termin-export.json: %v", err)
	}
	status, api := w.asPatient(t, patient, "GET", "/api/patients/me/export", nil)
	if err := json.Unmarshal(api, &want); status != http.StatusOK || err != nil {
		t.Fatalf("the API's export: %d %v %s", status, err, api)
	}
	for _, part := range []string{"profile", "appointments"} {
		if !reflect.DeepEqual(got[part], want[part]) {
			t.Errorf("the file's %s = %v, the API's export gives %v", part, got[part], want[part])
		}
	}
	if p, _ := got["profile"].(map[string]any); p["name"] != "Ida Muster" || p["email"] != "ida@example.org" {
		t.Errorf("the file's profile = %v, want the patient's name and address", got["profile"])
	}
	if a, _ := got["appointments"].([]any); len(a) != 1 || fmt.Sprint(a[0].(map[string]any)["id"]) != fmt.Sprint(booked.id()) {
		t.Errorf("the file's appointments = %v, want booking %d", got["appointments"], booked.id())
	}
	p.waitFor("the page saying so", `document.getElementById('notice').textContent.includes('termin-export.json')`)
}
