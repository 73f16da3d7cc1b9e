package system_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPageBooksAnyOfSeveralTimes drives "any of these times" in Chromium
// against the whole system: several times ticked (or a part of the day
// taken at once) go out as one booking naming them all, and the page says
// which of them was booked.
func TestPageBooksAnyOfSeveralTimes(t *testing.T) {
	t.Parallel()
	w := newWebStack(t)
	browser := newBrowser(t)

	t.Run("books the first free of three times when the first two fill", func(t *testing.T) {
		a, b, c := w.slot(43, tomorrowAt(8, 0), 1), w.slot(43, tomorrowAt(8, 15), 1), w.slot(43, tomorrowAt(9, 0), 1)
		afternoon := []int64{w.slot(43, tomorrowAt(14, 0), 1), w.slot(43, tomorrowAt(15, 0), 1)}
		p := w.open(browser, 121)
		p.chooseDay(43, tomorrowAt(8, 0))
		p.waitFor("the boxes of the day's times", `!document.getElementById('anyof').hidden && document.querySelectorAll('#anyof-times input').length === 5`)
		for i, slot := range []int64{a, b} { // taken while the page shows them free
			if got := w.mustDo("POST", "/api/appointments", fmt.Sprintf("other-%d", i), bookBody(slot, 900+int64(i))); got.status != 201 {
				t.Fatalf("another patient's booking of slot %d = %d, want 201", slot, got.status)
			}
		}
		p.click(anyofBox(a))
		p.click(anyofBox(b))
		p.tabTo(anyofBox(c)) // the keyboard ticks a box as well
		p.run("press Space", chromedp.KeyEvent(" "))
		p.waitText("#anyof-count", "3 Uhrzeiten gewählt.")
		p.screenshot("page-any-of")
		p.axeCheck("the list of times to tick")
		p.spyOnRequests()
		p.click("#anyof-next")
		p.waitFor("the confirm step", `!document.getElementById('v-confirm').hidden`)
		if got := eval[[]string](p, `[...document.querySelectorAll('#confirm-times li')].map(li => li.textContent)`); !slices.Equal(got, []string{"08:00 Uhr", "08:15 Uhr", "09:00 Uhr"}) {
			t.Errorf("the confirm step lists %q, want the three times in Berlin's time", got)
		}
		p.axeCheck("the confirm step of three times")
		p.click("#confirm-book")
		p.waitText("#result-title", "Ihr Termin ist gebucht")
		if what, text := p.text("#result-what"), p.text("#result-text"); !strings.Contains(what, "09:00") || !strings.HasPrefix(text, "Von Ihren 3 Uhrzeiten ist es 09:00 Uhr geworden.") {
			t.Errorf("the result says %q and %q, want the third time (09:00) named as the one booked", what, text)
		}
		bodies := p.bookings()
		if len(bodies) != 1 || !slices.Equal(bodies[0].SlotIDs, []int64{a, b, c}) || bodies[0].SlotID != 0 {
			t.Fatalf("the page sent %+v, want one booking naming slotIds [%d %d %d]", bodies, a, b, c)
		}
		keys := w.appointmentKeys(121)
		if len(keys) != 1 || keys[0] != bodies[0].Key || w.queryInt(`SELECT slot_id FROM appointment WHERE patient_id = 121`) != int(c) {
			t.Errorf("patient 121 holds appointments with keys %v, want one of slot %d with the page's key %q", keys, c, bodies[0].Key)
		}
		p.click("#result-again") // the day again: the booked time is the patient's, the boxes ready for another booking
		p.waitFor("the boxes again, ready", `!document.getElementById('anyof').hidden && !document.getElementById('anyof-afternoon').disabled &&
		  document.getElementById('anyof-next').textContent === 'Weiter mit diesen Uhrzeiten'`)
		if got := p.boxes(); !slices.Equal(got, afternoon) {
			t.Errorf("after the booking the boxes are %v, want the afternoon's free times %v", got, afternoon)
		}
	})

	t.Run("takes exactly the free times of the morning, or of the afternoon", func(t *testing.T) {
		var morning []int64
		for _, m := range []int{8 * 60, 8*60 + 30, 11*60 + 45} {
			morning = append(morning, w.slot(44, tomorrowAt(m/60, m%60), 1))
		}
		full := w.slot(44, tomorrowAt(10, 0), 1)
		afternoon := []int64{w.slot(44, tomorrowAt(12, 0), 1), w.slot(44, tomorrowAt(16, 30), 1)}
		if got := w.mustDo("POST", "/api/appointments", "other-full", bookBody(full, 910)); got.status != 201 {
			t.Fatalf("another patient's booking = %d, want 201", got.status)
		}
		p := w.open(browser, 122)
		p.chooseDay(44, tomorrowAt(8, 0))
		p.waitFor("the quick picks", `!document.getElementById('anyof').hidden && !document.getElementById('anyof-morning').hidden`)
		p.click(anyofBox(afternoon[1])) // a quick pick replaces what was ticked
		p.click("#anyof-morning")
		if got := p.ticked(); !slices.Equal(got, morning) {
			t.Errorf("'any time this morning' ticks %v, want the free morning times %v", got, morning)
		}
		p.click("#anyof-afternoon")
		if got := p.ticked(); !slices.Equal(got, afternoon) {
			t.Errorf("'any time this afternoon' ticks %v, want %v", got, afternoon)
		}
		p.axeCheck("the afternoon's times ticked")
	})

	t.Run("says none was free when every chosen time filled", func(t *testing.T) {
		a, b := w.slot(45, tomorrowAt(9, 0), 1), w.slot(45, tomorrowAt(9, 15), 1)
		p := w.open(browser, 123)
		p.chooseDay(45, tomorrowAt(9, 0))
		p.click("#anyof-morning")
		for i, slot := range []int64{a, b} {
			if got := w.mustDo("POST", "/api/appointments", fmt.Sprintf("other-none-%d", i), bookBody(slot, 920+int64(i))); got.status != 201 {
				t.Fatalf("another patient's booking = %d, want 201", got.status)
			}
		}
		p.book("#anyof-next")
		p.waitText("#result-title", "Das hat leider nicht geklappt")
		if text := p.text("#result-text"); text != "Keine Ihrer 2 Uhrzeiten war mehr frei." {
			t.Errorf("the result says %q, want that none of the two times was free", text)
		}
		if n := w.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 123`); n != 0 {
			t.Errorf("patient 123 holds %d appointments, want none", n)
		}
	})
}

func anyofBox(slot int64) string { return fmt.Sprintf(`#anyof-times [data-anyof="%d"]`, slot) }

// ticked is the slots whose boxes are ticked, in the list's order.
func (p *tab) ticked() []int64 {
	p.t.Helper()
	return eval[[]int64](p, `[...document.querySelectorAll('#anyof-times input:checked')].map(i => Number(i.dataset.anyof))`)
}

// boxes is the slots that have a box, in the list's order.
func (p *tab) boxes() []int64 {
	p.t.Helper()
	return eval[[]int64](p, `[...document.querySelectorAll('#anyof-times input')].map(i => Number(i.dataset.anyof))`)
}

// sentBooking is one booking the page sent: its body and key.
type sentBooking struct {
	SlotID  int64   `json:"slotId"`
	SlotIDs []int64 `json:"slotIds"`
	Key     string  `json:"-"`
}

// bookings are the bookings (POST /api/appointments) the page sent since
// spyOnRequests, with their bodies read.
func (p *tab) bookings() []sentBooking {
	p.t.Helper()
	var out []sentBooking
	for _, r := range p.requests() {
		if r.URL != "/api/appointments" {
			continue
		}
		var b sentBooking
		if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
			p.t.Fatal(err)
		}
		b.Key = r.Key
		out = append(out, b)
	}
	return out
}
