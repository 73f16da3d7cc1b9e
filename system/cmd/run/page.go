package main

import (
	"time"

	"termin/system"
)

// demoPatient is the patient the printed page link signs in as.
const demoPatient = 77

// pageLinkTTL is how long the printed sign-in link works.
const pageLinkTTL = 12 * time.Hour

// pageLink is what `make run` prints for the patient page: a link that
// signs in as the demo patient, or the bare page when there is no secret to
// sign with.
func pageLink(gatewayURL string, secret []byte) string {
	link, err := system.PageLink(gatewayURL, secret, demoPatient, pageLinkTTL)
	if err != nil {
		return gatewayURL + "/   (no AUTH_SECRET: the page cannot sign anyone in)"
	}
	return link
}
