package system_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"termin/system"
	"termin/system/devidp"
)

// signInLifetime is how long the test provider's access tokens live: so
// short that the page renews its token every 4.5 s, while it waits in the
// line too.
const signInLifetime = 6 * time.Second

// signInOpensIn places the opening after seeding: time enough for the page
// to reload and pick the slot; inLineFor before it the page joins the line,
// time enough to renew there. A line joined much earlier is told to come
// back after the opening's first seconds.
const (
	signInOpensIn = 20 * time.Second
	inLineFor     = 9 * time.Second
)

// currentToken is the access token the page sends, as JavaScript.
const currentToken = `window.TerminSignIn.token()`

// TestPagesSignInThroughTheProvider: on a system started as `make run`
// starts it, with its development OpenID provider, a patient signs in on
// the patient page through the provider's form (Authorization Code with
// PKCE; the test hands the page nothing), books a slot of the opening
// burst before it opens and waits in the line, renews its token there and
// keeps its place (same key, a position no worse), gets its final answer,
// and signs out, which ends the provider's session too. Then staff of
// practice 1 sign in on the practice page the same way (the provider's form
// again: the session ended), see demo doctor 1's day, renew, see it again,
// and sign out.
func TestPagesSignInThroughTheProvider(t *testing.T) {
	idp, err := devidp.Start(devidp.Config{AccessTokenLifetime: signInLifetime, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close(context.Background()) })
	watch := newKeyWatch(linePatient)
	sys, dev := startLikeRunWith(t, slog.New(watch), func(c *system.Config) {
		c.Gateway.OIDC.Issuer, c.Gateway.OIDC.Audience, c.Gateway.OIDCClientID = idp.Issuer(), idp.Audience(), idp.ClientID()
		c.DemoIssuer = idp.Issuer()
	})
	idp.AllowApp(sys.GatewayURL())
	browser := newBrowser(t)

	p := openTab(t, browser, sys.Gateway.URL()+"/")
	p.signInAtProvider("#signin-provider", devidp.DemoPatientSubject, "#nav")
	if who := p.text("#who"); who != "Angemeldet als Patient Nr. 77" {
		t.Errorf("the page shows %q, want the demo patient linked to patient 77", who)
	}
	p.noTokenInAddress()
	b := startBurst(t, sys, dev, signInOpensIn)
	p.run("reload, signed in still, with the burst's doctor listed", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#nav")))
	line := &pageBooking{name: "signed in at the provider, in line", patient: linePatient, slot: b.opening.Slots[1].ID, from: b.opening.OpensAt, p: p}
	p.chooseDay(b.opening.Doctor, b.opening.Slots[0].Start)
	p.waitFor("the slot", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, line.slot))
	p.spyOnRequests()
	if wait := time.Until(b.opening.OpensAt.Add(-inLineFor)); wait > 0 {
		time.Sleep(wait) // the click comes when a patient at 06:59 would click
	}
	p.book(fmt.Sprintf(`[data-slot="%d"]`, line.slot))
	p.waitFor("a place in the line", inWaitingRoom+` && /^[0-9]/.test(`+waitPos+`)`)
	renewedInLine(t, p, b.opening.OpensAt)
	awaitAnswers(t, line)
	checkBurstAnswer(t, pool(t, sys.DatabaseURL), line, watch.answers(linePatient))
	b.wait(t)

	p.click("#signout")
	p.run("back from the provider's sign-out", chromedp.WaitVisible(chromedp.CSS("#signin-provider")))
	if n := idp.Sessions(); n != 0 || eval[string](p, currentToken) != "" {
		t.Errorf("after Abmelden: %d sessions at the provider, token %q; want none", n, eval[string](p, currentToken))
	}

	pr := openTab(t, browser, sys.Gateway.URL()+"/praxis")
	pr.signInAtProvider("#p-signin-provider", "staff-1", "#p-desk") // the form again: the session ended
	pr.noTokenInAddress()
	showDay := func() {
		pr.showDay(b.opening.Slots[0].Start.In(berlin).Format(time.DateOnly))
		pr.waitFor("demo doctor 1's day", `document.querySelector('#p-grid td[data-doctor="1"][data-slot]') && !document.getElementById('notice').classList.contains('problem')`)
	}
	showDay()
	before := eval[string](pr, currentToken)
	pr.waitWithin(2*signInLifetime, "a renewal", currentToken+` !== `+strconv.Quote(before)+` && `+currentToken+` !== ''`)
	showDay()
	if !eval[bool](pr, `!document.getElementById('p-desk').hidden`) {
		t.Fatalf("the day is gone after a renewal:\n%s", pr.visibleText())
	}
	pr.click("#p-signout")
	pr.run("back from the provider's sign-out", chromedp.WaitVisible(chromedp.CSS("#p-signin-provider")))
	if n := idp.Sessions(); n != 0 {
		t.Errorf("after Abmelden on the practice page: %d sessions at the provider", n)
	}
}

// signInAtProvider clicks the page's "Anmelden", picks subject on the
// provider's form and signs in, and waits for the page to show done.
func (p *tab) signInAtProvider(start, subject, done string) {
	p.t.Helper()
	p.click(start)
	p.run("the provider's form", chromedp.WaitVisible(chromedp.CSS("#anmelden")))
	p.click(fmt.Sprintf(`input[value=%q]`, subject))
	p.click("#anmelden")
	p.run("back from the provider", chromedp.WaitVisible(chromedp.CSS(done)))
}

// noTokenInAddress fails the test when the page's address carries a token
// or the code it was signed in with.
func (p *tab) noTokenInAddress() {
	p.t.Helper()
	if loc := eval[string](p, `location.href`); strings.Contains(loc, "token") || strings.Contains(loc, "code=") || strings.Contains(loc, "eyJ") {
		p.t.Errorf("the address carries a token or a code: %s", loc)
	}
}

// renewedInLine waits, before the opening, for the page's token to be
// renewed while it waits in the line; then reloads the page, which sends
// the waiting request again at once, with the renewed token: the same key
// must keep a place no worse than before.
func renewedInLine(t *testing.T, p *tab, opensAt time.Time) {
	t.Helper()
	before, key, pos := eval[string](p, currentToken), p.pendingKey(), linePosition(t, p)
	p.waitWithin(time.Until(opensAt), "a renewal in the line, before the opening",
		currentToken+` !== `+strconv.Quote(before)+` && `+currentToken+` !== '' && `+inWaitingRoom)
	renewed := eval[string](p, currentToken)
	p.run("reload in the line", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#v-wait")))
	p.spyOnRequests()
	p.waitFor("the line's answer to the renewed token", inWaitingRoom+` && /^[0-9]/.test(`+waitPos+`)`)
	if time.Now().After(opensAt) {
		t.Fatalf("the renewal and the request after it came after the opening at %s: raise signInOpensIn", opensAt.Format("15:04:05.000"))
	}
	if got, now, tok := p.pendingKey(), linePosition(t, p), eval[string](p, currentToken); got != key || now > pos || tok != renewed {
		t.Errorf("after the renewal: key %q at position %d with the renewed token %v; want key %q at %d or better", got, now, tok == renewed, key, pos)
	}
}

// linePosition is the position the waiting room shows.
func linePosition(t *testing.T, p *tab) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(eval[string](p, waitPos)))
	if err != nil {
		t.Fatalf("the waiting room shows position %q", eval[string](p, waitPos))
	}
	return n
}
