package main

import "termin/system"

// pageLink is what `make run` prints for the patient page: a link that
// signs in as the development patient (the token rides in the fragment,
// which the browser never sends to a server), or the bare page when
// authentication is off and there is no token to give.
func pageLink(gatewayURL string, dev *system.DevAuth) string {
	if dev == nil {
		return gatewayURL + "/   (AUTH_DISABLED=1: the page has no token to sign in with)"
	}
	return gatewayURL + "/#token=" + dev.PatientToken
}
