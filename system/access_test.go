package system_test

import (
	"testing"
)

// TestAccessPatientPage holds the patient page to what a person with a
// screen reader, a keyboard alone, a small phone or large text needs: one
// stack and one browser, a tab per case.
func TestAccessPatientPage(t *testing.T) {
	t.Parallel()
	w := newWebStack(t)
	browser := newBrowser(t)

	t.Run("every state passes axe-core's WCAG 2.1 A and AA rules", func(t *testing.T) {
		walkPatientPage(t, w, browser, 301, 41, func(p *tab, state string) { p.axeCheck(state) })
	})

	t.Run("every state fits a small phone, with text at 200 % too", func(t *testing.T) {
		walkPatientPage(t, w, browser, 341, 44, func(p *tab, state string) { p.fits(state) })
	})

	t.Run("books from the search to the outcome with keys only", func(t *testing.T) {
		keysOnlyBooking(t, w, openAs(t, w, browser, 311))
	})

	t.Run("says the place in line and the outcome through live regions", func(t *testing.T) {
		announcesLineAndOutcome(t, w, openAs(t, w, browser, 321))
	})

	t.Run("downloads the patient's data from my details", func(t *testing.T) {
		exportsTheProfile(t, w, browser, 351)
	})

	t.Run("warns before a hold ends", func(t *testing.T) {
		warnsBeforeAHoldEnds(t, w, openAs(t, w, browser, 331))
	})
}
