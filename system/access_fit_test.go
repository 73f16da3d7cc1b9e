package system_test

import (
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// Small phones: the width and height of an iPhone SE-class screen, in CSS
// pixels; the page must work on it without sideways scrolling (WCAG 1.4.10).
const smallWidth, smallHeight = 375, 812

// unfit lists what does not fit a viewport width wide: the page scrolling
// sideways, and every shown button, field and list (not a live region's
// hidden words) that reaches past the viewport's sides or is cut off by an
// ancestor that clips or scrolls its overflow. The width is passed, not
// read: a mobile viewport widens itself to content too wide for it.
const unfit = `((width) => {
  const out = [];
  const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ').join('.') : '') +
    ' "' + (e.textContent || e.value || '').trim().slice(0, 30) + '"';
  const page = document.documentElement.scrollWidth;
  if (page > width) out.push('the page is ' + page + ' px wide');
  for (const e of document.querySelectorAll('button, input, select')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue;
    if (r.left < -0.5 || r.right > width + 0.5) out.push(name(e) + ' spans ' + Math.round(r.left) + ' to ' + Math.round(r.right) + ' px');
    for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) {
        out.push(name(e) + ' is cut off by ' + name(a));
      }
    }
  }
  return out;
})`

// fits checks the page's state on a small phone, with the text at its
// size and at 200 %. The larger text is the root font size at 200 %:
// that is what a browser's text zoom does (Chrome's and Android's font
// size setting, Firefox's and Safari's "zoom text only") — every size the
// page gives in rem or em grows with it, while the viewport stays as
// narrow, the harder case than page zoom, which also widens the layout
// in CSS pixels on a desktop. Media queries keep the browser's default
// size, as with text zoom.
func (p *tab) fits(state string) {
	p.t.Helper()
	p.run("a small phone", chromedp.EmulateViewport(smallWidth, smallHeight, chromedp.EmulateScale(1), chromedp.EmulateMobile))
	for _, size := range []string{"", "200%"} {
		eval[bool](p, fmt.Sprintf(`(document.documentElement.style.fontSize = %q, true)`, size))
		what := fmt.Sprintf("%s at %d×%d", state, smallWidth, smallHeight)
		if size != "" {
			what += " with text at " + size
		}
		if bad := eval[[]string](p, fmt.Sprintf("%s(%d)", unfit, smallWidth)); len(bad) > 0 {
			p.t.Errorf("%s does not fit:\n    %s", what, strings.Join(bad, "\n    "))
		}
	}
	eval[bool](p, `(document.documentElement.style.fontSize = '', true)`)
}
