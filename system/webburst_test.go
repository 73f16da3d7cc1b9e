package system_test

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"termin/gateway/token"
	"termin/shared/poll"
	"termin/system"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The page's patients in the burst: the one `make run` signs in, who joins
// the line before the opening, and another who clicks in the middle of it.
const (
	linePatient  = system.DevPatient
	burstPatient = system.DevPatient + 1
)

// burstUnderWay is how many bookings the gateway must have received before
// the second page clicks: the burst's first tenth of a second at full rate.
const burstUnderWay = 500

// answerWithin bounds the wait for the page's final answer: from the
// opening for the patient in line, from the click for the other.
const answerWithin = 20 * time.Second

// finalAnswer holds once the page shows a result and has finished looking
// for a full slot's alternatives.
const finalAnswer = `!document.getElementById('v-result').hidden && ` + altsState + ` !== 'loading'`

// pageBooking is one patient booking through the page during the burst.
type pageBooking struct {
	name    string
	p       *tab
	patient int64
	slot    int64
	from    time.Time     // the click, or the opening for a click before it
	took    time.Duration // from then to the page's final answer
}

// burstOpensIn is how long after seeding the burst's slots open: time for
// the pages to sign in, find the slot and join the line before the opening.
// The load test's own 10 s is too little on a busy machine: a page can
// click after the opening, be booked at once and never show the line.
const burstOpensIn = 20 * time.Second

// TestPageBooksDuringTheOpeningBurst: while `make loadtest`'s opening burst
// runs, scaled to a few seconds, against the system started as `make run`
// starts it, two patients book through the page in a headless Chromium:
// one signs in with the link `make run` prints, picks the popular doctor
// and one of its slots that opens, and clicks before the opening, so it
// waits in the line; the other clicks in the middle of the burst. Each page
// must show a final answer within answerWithin — booked, held in the
// database under the page's key, or the full slot's message with its
// alternatives looked for — and the gateway must have seen exactly one
// Idempotency-Key from each browser. The burst's own checks must hold.
func TestPageBooksDuringTheOpeningBurst(t *testing.T) {
	watch := newKeyWatch(linePatient, burstPatient)
	sys, dev := startLikeRun(t, slog.New(watch))
	db := pool(t, sys.DatabaseURL)
	browser := newBrowser(t)
	b := startBurst(t, sys, dev, burstOpensIn)
	op := b.opening
	if len(op.Slots) != 40 || op.Slots[0].Capacity != 1 || op.Slots[1].Capacity != 1 {
		t.Fatalf("the opening has %d slots, want 40, the first two of one place: %+v", len(op.Slots), op.Slots)
	}
	burstToken, err := token.Sign(dev.Secret, strconv.Itoa(burstPatient), "patient", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	line := &pageBooking{name: "in line before the opening", patient: linePatient, slot: op.Slots[1].ID, from: op.OpensAt,
		p: signedInTab(t, browser, sys.Gateway.URL(), "/", dev.PatientToken)}
	mid := &pageBooking{name: "clicking in the burst", patient: burstPatient, slot: op.Slots[0].ID,
		p: signedInTab(t, browser, sys.Gateway.URL(), "/", burstToken)}
	for _, pb := range []*pageBooking{line, mid} {
		pb.p.chooseDay(op.Doctor, op.Slots[0].Start)
		pb.p.waitFor("the slot", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, pb.slot))
	}
	if name := line.p.text("#doctors .name"); name != op.Name {
		t.Errorf("the chosen doctor shows as %q, want %q from the list", name, op.Name)
	}
	if note := line.p.text(fmt.Sprintf(`[data-slot="%d"] .sub`, line.slot)); note != "öffnet um "+op.OpensAt.In(berlin).Format("15:04") {
		t.Errorf("the slot's note says %q, want when it opens", note)
	}

	line.p.spyOnRequests()
	if now := time.Now(); now.After(op.OpensAt) {
		t.Fatalf("the page was ready to click at %s, after the opening at %s (a slow machine: raise burstOpensIn)",
			now.Format("15:04:05.000"), op.OpensAt.Format("15:04:05.000"))
	}
	line.p.book(fmt.Sprintf(`[data-slot="%d"]`, line.slot))
	line.p.waitFor("a place in the line", inWaitingRoom+` && `+waitPos+` !== '–'`)
	if seen := watch.answers(linePatient); time.Now().After(op.OpensAt) || len(seen) == 0 || seen[0].status != 202 {
		t.Fatalf("the page was in line at %s, the opening at %s, answered %v: want 202 before the opening (a slow machine: raise burstOpensIn)",
			time.Now().Format("15:04:05.000"), op.OpensAt.Format("15:04:05.000"), answerStatuses(seen))
	}
	// The burst is under way once the gateway has received its first
	// clicks; the line's place was taken before them.
	poll.For(t, time.Minute, 10*time.Millisecond, func() error {
		if n := watch.received(); n < burstUnderWay {
			return fmt.Errorf("%d bookings received so far", n)
		}
		return nil
	})
	mid.p.spyOnRequests()
	mid.from = time.Now()
	mid.p.book(fmt.Sprintf(`[data-slot="%d"]`, mid.slot))
	if end := op.OpensAt.Add(burstClicks); mid.from.After(end) {
		t.Errorf("the page's click came at %s, after the burst's clicks ended at %s", mid.from.Format("15:04:05.000"), end.Format("15:04:05.000"))
	}

	awaitAnswers(t, line, mid)
	for _, pb := range []*pageBooking{line, mid} {
		checkBurstAnswer(t, db, pb, watch.answers(pb.patient))
	}
	b.wait(t)
}

// awaitAnswers waits until each page shows a final answer, noting when,
// and fails the test for a page that had none within answerWithin.
func awaitAnswers(t *testing.T, bookings ...*pageBooking) {
	t.Helper()
	_ = poll.Until(answerWithin, 50*time.Millisecond, func() error {
		waiting := 0
		for _, pb := range bookings {
			if pb.took == 0 && time.Since(pb.from) <= answerWithin && eval[bool](pb.p, "!!("+finalAnswer+")") {
				pb.took = time.Since(pb.from)
			}
			if pb.took == 0 && time.Since(pb.from) <= answerWithin {
				waiting++
			}
		}
		if waiting > 0 {
			return fmt.Errorf("%d pages without an answer", waiting)
		}
		return nil
	})
	for _, pb := range bookings {
		if pb.took == 0 {
			t.Fatalf("%s: no final answer within %v\npage shows:\n%s", pb.name, answerWithin, pb.p.visibleText())
		}
	}
}

// checkBurstAnswer: the page's final answer is one the burst allows, the
// database agrees with it, and the server saw one key from the page — the
// one the page sent.
func checkBurstAnswer(t *testing.T, db *pgxpool.Pool, pb *pageBooking, seen []seenBooking) {
	t.Helper()
	title := eval[string](pb.p, `document.getElementById('result-title').textContent`)
	code := eval[string](pb.p, `document.getElementById('result-text').dataset.code || ''`)
	alts := eval[string](pb.p, altsState)
	text := eval[string](pb.p, resultText)
	held := heldKeys(t, db, pb.patient, pb.slot)
	_, sent := pb.p.sent()
	keys := distinctKeys(seen)
	if len(keys) != 1 || !slices.Equal(sent, keys) || !pageKey.MatchString(keys[0]) {
		t.Errorf("%s: the server saw keys %v, the page sent %v: want one key", pb.name, keys, sent)
		return
	}
	switch {
	case title == "Ihr Termin ist gebucht" && slices.Equal(held, keys):
	case code == "SLOT_FULL" && text == "Dieser Termin ist leider schon vergeben." && (alts == "shown" || alts == "none") && len(held) == 0:
	default:
		t.Errorf("%s: the page shows %q, %q (%s, alternatives %s) while the patient holds keys %v of the slot; the server answered %v",
			pb.name, title, text, code, alts, held, answerStatuses(seen))
		return
	}
	t.Logf("%s: %q %s on the page after %v; the server answered %s, all with key %s",
		pb.name, title, code, pb.took.Round(10*time.Millisecond), answersSince(seen, pb.from), keys[0])
}

// answersSince lists the statuses the server answered and when, from t.
func answersSince(seen []seenBooking, t time.Time) string {
	parts := make([]string, len(seen))
	for i, s := range seen {
		parts[i] = fmt.Sprintf("%d at %+.2fs", s.status, s.at.Sub(t).Seconds())
	}
	return strings.Join(parts, ", ")
}

// heldKeys are the keys of the patient's bookings of the slot.
func heldKeys(t *testing.T, db *pgxpool.Pool, patient, slot int64) []string {
	t.Helper()
	rows, err := db.Query(t.Context(), `SELECT idempotency_key FROM appointment WHERE patient_id = $1 AND slot_id = $2 AND status = 'BOOKED'`, patient, slot)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// pool connects to the system's database for the test's own reads.
func pool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	db, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}
