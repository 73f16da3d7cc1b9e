package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

type options struct {
	gateway, token, chromium string
	after, within            time.Duration
}

// target is the slot to book: the load test's doctor and its first slot
// that opens ahead.
type target struct {
	doctor  int64
	name    string
	slot    int64
	date    string
	opensAt time.Time
}

var berlin, _ = time.LoadLocation("Europe/Berlin")

// findTarget waits up to two minutes for a doctor of `make loadtest`
// ("Dr. Lasttest …") with a slot tomorrow that opens ahead.
func findTarget(ctx context.Context, o options, out io.Writer) (target, error) {
	date := time.Now().In(berlin).AddDate(0, 0, 1).Format(time.DateOnly)
	fmt.Fprintln(out, "waiting for make loadtest's popular doctor …")
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		var list struct {
			Doctors []struct {
				ID   int64
				Name string
			}
		}
		if err := getJSON(ctx, o, "/api/doctors", &list); err != nil {
			return target{}, err
		}
		for _, d := range list.Doctors {
			if !strings.HasPrefix(d.Name, "Dr. Lasttest") {
				continue
			}
			var day struct {
				Slots []struct {
					ID      int64
					OpensAt time.Time
				}
			}
			if err := getJSON(ctx, o, fmt.Sprintf("/api/doctors/%d/slots?date=%s", d.ID, date), &day); err != nil {
				return target{}, err
			}
			for _, s := range day.Slots {
				if s.OpensAt.After(time.Now().Add(time.Second)) {
					return target{doctor: d.ID, name: d.Name, slot: s.ID, date: date, opensAt: s.OpensAt}, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return target{}, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return target{}, errors.New("no doctor of make loadtest with a slot opening ahead within two minutes: start make loadtest")
}

func getJSON(ctx context.Context, o options, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.gateway+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+o.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// run finds the slot, books it through the page and prints the page's
// views until its answer.
func run(ctx context.Context, o options, out io.Writer) error {
	tg, err := findTarget(ctx, o, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s (id %d), slot %d on %s, opening %s\n", tg.name, tg.doctor, tg.slot, tg.date, tg.opensAt.In(berlin).Format("15:04:05.000"))
	dir, err := os.MkdirTemp("", "pagebook-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	alloc, cancel := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(o.chromium), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(dir))
	defer cancel()
	page, cancel := chromedp.NewContext(alloc)
	defer cancel()
	began := time.Now()
	err = signIn(page, o)
	if err == nil {
		err = chromedp.Do(page, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-doctor="%d"]`, tg.doctor))),
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-date="%s"]`, tg.date))),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`[data-slot="%d"]`, tg.slot))))
	}
	if err == nil {
		_, err = chromedp.Run(page, chromedp.Evaluate[bool](spy))
	}
	if err != nil {
		return fmt.Errorf("page: sign in and choose the slot: %w", err)
	}
	fmt.Fprintf(out, "signed in and chose the slot in %v\n", time.Since(began).Round(10*time.Millisecond))
	if o.after >= 0 {
		time.Sleep(time.Until(tg.opensAt.Add(o.after)))
	}
	clicked := time.Now()
	if err := chromedp.Do(page, chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-slot="%d"]`, tg.slot))),
		chromedp.Click(chromedp.CSS("#confirm-book"))); err != nil { // the page's confirm step sends it
		return fmt.Errorf("page: click book: %w", err)
	}
	return follow(page, o, out, tg, clicked)
}

// follow prints each new view of the page until it shows a final answer.
func follow(page context.Context, o options, out io.Writer, tg target, clicked time.Time) error {
	deadline := clicked.Add(o.within)
	if tg.opensAt.After(clicked) {
		deadline = tg.opensAt.Add(o.within)
	}
	last := ""
	for time.Now().Before(deadline) {
		st, err := chromedp.Run(page, chromedp.Evaluate[view](viewJS))
		if err != nil {
			return err
		}
		if st.Text != last {
			fmt.Fprintf(out, "%+7.2fs after the click, %+7.2fs from the opening: %s\n",
				time.Since(clicked).Seconds(), time.Since(tg.opensAt).Seconds(), st.Text)
			last = st.Text
		}
		if st.Final {
			fmt.Fprintf(out, "the page sent %d booking requests with the keys %v; answers %v\n", st.Posts, st.Keys, st.Statuses)
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no answer on the page by %s", deadline.In(berlin).Format("15:04:05"))
}

// view is what the page shows, as viewJS reads it.
type view struct {
	Text     string   `json:"text"`
	Final    bool     `json:"final"`
	Posts    int      `json:"posts"`
	Keys     []string `json:"keys"`
	Statuses []int    `json:"statuses"`
}

// spy counts the page's booking requests, their keys and answers.
const spy = `(() => {
  window.__posts = 0; window.__keys = {}; window.__statuses = [];
  const real = window.fetch;
  window.fetch = async function (url, opts) {
    const post = opts && opts.method === 'POST';
    if (post) { window.__posts++; window.__keys[opts.headers['Idempotency-Key']] = true; }
    const res = await real.apply(this, arguments);
    if (post) window.__statuses.push(res.status);
    return res;
  };
  return true;
})()`

// viewJS summarises the view; the countdown's seconds are left out, so
// that only a change of what the page says is printed.
const viewJS = `(() => {
  const $ = (id) => document.getElementById(id);
  const out = {final: false, posts: window.__posts, keys: Object.keys(window.__keys), statuses: window.__statuses};
  if (!$('v-result').hidden) {
    const alts = $('alts-box').dataset.state || '';
    out.final = alts !== 'loading';
    out.text = 'result: ' + $('result-title').textContent + ' / ' + $('result-text').textContent +
      (alts ? ' / alternatives ' + alts + ': ' + ($('alts').children.length || $('alts-state').textContent) : '');
  } else if (!$('v-wait').hidden) {
    out.text = 'waiting room: position ' + $('wait-pos').textContent + ', wait ' + $('wait-eta').textContent +
      ' / ' + $('wait-state').textContent.replace(/\d+ s\b/g, 'n s');
  } else {
    out.text = 'booking view';
  }
  return out;
})()`

// signIn signs the page in: through the sign-in provider's form as its
// first person (`make run`'s demo patient 77) when the page has a provider,
// else with the token pasted, as the page keeps a pasted one.
func signIn(page context.Context, o options) error {
	err := chromedp.Do(page, chromedp.Navigate(o.gateway+"/"), chromedp.WaitVisible(chromedp.CSS("#v-signin")))
	if err != nil {
		return err
	}
	provider, err := chromedp.Run(page, chromedp.Evaluate[bool](`!document.getElementById('signin-provider').hidden`))
	if err != nil {
		return err
	}
	if provider {
		return chromedp.Do(page, chromedp.Click(chromedp.CSS("#signin-provider")), chromedp.WaitVisible(chromedp.CSS("#anmelden")),
			chromedp.Click(chromedp.CSS("#anmelden")), chromedp.WaitVisible(chromedp.CSS("#nav")))
	}
	if _, err := chromedp.Run(page, chromedp.Evaluate[bool](fmt.Sprintf(`(sessionStorage.setItem('termin.token', %q), true)`, o.token))); err != nil {
		return err
	}
	return chromedp.Do(page, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#nav")))
}
