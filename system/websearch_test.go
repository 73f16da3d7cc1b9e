package system_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// searchToConfirm drives the search the page starts with: a specialty and
// a town narrow the doctors to one, whose next free times leave out the
// time another patient booked; one click on the first of them opens the
// confirm step with the doctor's practice, and confirming books it.
func searchToConfirm(t *testing.T, w *webStack, browser context.Context) {
	for _, sql := range []string{
		`INSERT INTO practice (id, name, street, postcode, city) VALUES (9, 'Praxis am See', 'Seestraße 3', '14467', 'Potsdam')`,
		`INSERT INTO doctor (id, name, specialty, practice_id) VALUES (60, 'Dr. Jana Krüger', 'hno', 9), (61, 'Dr. Max Ohr', 'hno', 1)`,
	} {
		if _, err := w.db.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	at := tomorrowAt(9, 0)
	taken := w.slot(60, at, 1)
	first := w.slot(60, at.Add(15*time.Minute), 1)
	w.slot(60, at.Add(30*time.Minute), 1)
	w.slot(61, at, 1)
	if r := w.postAs(160, taken, "taken-first"); r.status != 201 {
		t.Fatalf("booking the first time: %d", r.status)
	}
	p := w.open(browser, 161)
	p.waitFor("the specialties", `document.querySelector('#search-specialty option[value="hno"]')`)
	if !eval[bool](p, `(document.getElementById('search-specialty').value = 'hno') === 'hno'`) {
		t.Fatal("could not choose a specialty")
	}
	p.typeInto("#search-place", "Potsdam")
	p.click("#search-form button")
	p.waitFor("the town's doctor alone", `document.querySelector('[data-doctor="60"]') && !document.querySelector('[data-doctor="61"]')`)
	if text := p.text(`[data-doctor="60"]`); !strings.Contains(text, "Praxis am See") || !strings.Contains(text, "14467 Potsdam") {
		t.Errorf("the result shows %q, want the practice's address", text)
	}
	free := `#doctors .result [data-free-slot]`
	if got := eval[string](p, `document.querySelector('`+free+`').dataset.freeSlot`); got != fmt.Sprint(first) {
		t.Fatalf("the first next free time is slot %s, want %d (the earlier one is booked)", got, first)
	}
	p.click(free)
	p.waitFor("the confirm step", `!document.getElementById('v-confirm').hidden`)
	if when, doc, addr := p.text("#confirm-when"), p.text("#confirm-doctor"), p.text("#confirm-address"); !strings.Contains(when, "09:15") ||
		!strings.HasPrefix(doc, "Dr. Jana Krüger") || !strings.Contains(addr, "Potsdam") {
		t.Errorf("the confirm step shows %q, %q, %q; want 09:15, the doctor and the practice's address", when, doc, addr)
	}
	p.click("#confirm-book")
	p.waitFor("the result", `!document.getElementById('v-result').hidden`)
	if got := p.text("#result-title"); got != "Ihr Termin ist gebucht" {
		t.Fatalf("result = %q, want the booking confirmed", got)
	}
	if n := w.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 161 AND slot_id = $1 AND status = 'BOOKED'`, first); n != 1 {
		t.Errorf("patient 161 holds %d bookings of slot %d, want 1", n, first)
	}
}
