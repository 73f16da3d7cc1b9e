// Command pagebook books a slot of `make loadtest`'s popular doctor through
// the patient page in a headless Chromium, as a person at the page would
// during the opening burst, and prints what the page showed and when. It
// waits for the load test to name its doctor, signs in (through `make
// run`'s development provider as patient 77, or with the patient token of
// run.env on a gateway without one), picks that doctor, the day and the first slot
// that opens, clicks book (at once, in the line before the opening, or
// -after the opening) and follows the page to its answer. It exits 1 when
// the page shows none within -within.
//
//	. ./.data/run.env && go run ./system/cmd/pagebook -gateway "$GW" -token "$TOKEN"
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var o options
	flag.StringVar(&o.gateway, "gateway", os.Getenv("GW"), "the gateway's base URL (GW of .data/run.env)")
	flag.StringVar(&o.token, "token", os.Getenv("TOKEN"), "a patient's bearer token (TOKEN of .data/run.env)")
	flag.StringVar(&o.chromium, "chromium", "/usr/bin/chromium", "the browser to drive")
	flag.DurationVar(&o.after, "after", -1, "click this long after the opening; negative: as soon as the slot shows, in the line before it")
	flag.DurationVar(&o.within, "within", time.Minute, "longest wait for the page's answer after the click or the opening, whichever is later")
	flag.Parse()
	if o.gateway == "" || o.token == "" {
		fmt.Fprintln(os.Stderr, "pagebook: -gateway and -token are needed (. ./.data/run.env sets GW and TOKEN)")
		os.Exit(2)
	}
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pagebook:", err)
		os.Exit(1)
	}
}
