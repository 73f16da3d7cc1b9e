package system

import (
	"errors"
	"strconv"
	"termin/gateway/token"
	"time"
)

// PageLink is the address of the patient page that signs in as the patient
// with a token signed by secret: the token rides in the fragment, which the
// browser never sends to a server, and the page moves it at once to the
// tab's own storage.
func PageLink(gatewayURL string, secret []byte, patient int64, ttl time.Duration) (string, error) {
	if len(secret) == 0 || patient <= 0 {
		return "", errors.New("system: a page link needs the auth secret and a positive patient id")
	}
	tok, err := token.Sign(secret, strconv.FormatInt(patient, 10), "patient", ttl)
	if err != nil {
		return "", err
	}
	return gatewayURL + "/#token=" + tok, nil
}
