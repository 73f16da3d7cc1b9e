package system_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	"github.com/nats-io/nats-server/v2/server"

	"termin/gateway/oidc/oidctest"
	"termin/migrations/pgtest"
	"termin/shared/poll"
	"termin/system"
	"termin/system/devidp"
)

// outsideAudience is the API's name at the outside check's issuer.
const outsideAudience = "praxis-api"

// TestGatewayBinaryTrustsOnlyItsProvider is the outside check of sign-in:
// bin/gateway, started with nothing but OIDC_ISSUER and OIDC_AUDIENCE (and
// DATABASE_URL, NATS_URL and its address) beside a bin/booker, is not ready
// while its issuer on loopback is down and serves no one; once the issuer is
// up, a patient signs in there (Authorization Code with PKCE through its
// form), learns its patient id, books without naming itself, and reads its
// booking; every forged or unfit token is refused with the same 401 as no
// token at all.
func TestGatewayBinaryTrustsOnlyItsProvider(t *testing.T) {
	t.Parallel()
	issuerAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	dbURL := pgtest.URL(t)
	ns, err := system.StartNATS(t.TempDir(), server.RANDOM_PORT)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	startBinary(t, "booker", "termin/booker/cmd/booker", `"msg":"booker started"`, "DATABASE_URL="+dbURL,
		"NATS_URL="+ns.ClientURL(), fmt.Sprintf("BOOKER_ADDR=127.0.0.1:%d", freePort(t)))
	gw := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	startBinary(t, "gateway", "termin/gateway/cmd/gateway", `"msg":"gateway started"`, "OIDC_ISSUER=http://"+issuerAddr,
		"OIDC_AUDIENCE="+outsideAudience, "DATABASE_URL="+dbURL, "NATS_URL="+ns.ClientURL(), "GATEWAY_ADDR="+strings.TrimPrefix(gw, "http://"))
	poll.For(t, 30*time.Second, 50*time.Millisecond, func() error { return statusIs(gw+"/healthz", 200) })
	if err := statusIs(gw+"/readyz", 503); err != nil {
		t.Fatalf("with its issuer down: %v", err)
	}

	idp, err := devidp.Start(devidp.Config{Addr: issuerAddr, Audience: outsideAudience, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idp.Close(context.Background()) })
	idp.AllowApp(gw)
	poll.For(t, 45*time.Second, 100*time.Millisecond, func() error { return statusIs(gw+"/readyz", 200) })

	var signin struct{ Issuer string }
	if status := callInto(t, "GET", gw+"/assets/signin.json", "", "", "", &signin); status != 200 || signin.Issuer != "" {
		t.Errorf("signin.json without OIDC_CLIENT_ID: %d %+v, want the pages told to take a pasted token", status, signin)
	}
	ctx := context.Background()
	browser, err := devidp.NewBrowser(ctx, idp.Issuer(), idp.ClientID(), gw+"/")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := browser.SignIn(ctx, devidp.DemoPatientSubject)
	if err != nil {
		t.Fatal(err)
	}
	var me struct{ ID int64 }
	if status := callInto(t, "GET", gw+"/api/patients/me", tok.AccessToken, "", "", &me); status != 200 || me.ID < 1_000_000_000 {
		t.Fatalf("GET /api/patients/me: %d, id %d; want a new patient's id", status, me.ID)
	}
	slot := pgtest.InsertSlot(t, pool(t, dbURL), 42, time.Now().Add(48*time.Hour).Truncate(time.Hour), 1)
	var booked struct{ PatientID, SlotID int64 }
	if status := callInto(t, "POST", gw+"/api/appointments", tok.AccessToken, "outside-1", fmt.Sprintf(`{"slotId":%d}`, slot), &booked); status != 201 ||
		booked.PatientID != me.ID || booked.SlotID != slot {
		t.Fatalf("booking without patientId: %d %+v, want 201 for patient %d", status, booked, me.ID)
	}
	var mine struct{ Appointments []struct{ SlotID int64 } }
	if status := callInto(t, "GET", gw+"/api/appointments", tok.AccessToken, "", "", &mine); status != 200 ||
		len(mine.Appointments) != 1 || mine.Appointments[0].SlotID != slot {
		t.Errorf("own appointments: %d %+v", status, mine)
	}
	refusedLikeNoToken(t, gw, outsideForgeries(t, idp))
}

// outsideForgeries are tokens the gateway must refuse, by name: forged,
// or signed by the issuer but not fit for this gateway.
func outsideForgeries(t *testing.T, idp *devidp.Provider) map[string]string {
	t.Helper()
	now := time.Now()
	good := oidctest.Claims(idp.Issuer(), outsideAudience, devidp.DemoPatientSubject, now)
	signed := func(changes jwt.MapClaims) string {
		tok, err := idp.Sign(oidctest.With(good, changes))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	attacker := oidctest.NewKey(t, idp.KeyID(), jwt.SigningMethodRS256)
	elsewhere := oidctest.Start(t, attacker.Renamed("atk"))
	return map[string]string{
		"alg confusion: HS256 with the issuer's public key": hmacWithIssuerKey(t, idp, good),
		"alg none":                             oidctest.None(t, idp.KeyID(), good),
		"a foreign key under the issuer's kid": attacker.Sign(t, good, nil),
		"jku pointing at the attacker's keys":  attacker.Sign(t, good, map[string]any{"kid": "atk", "jku": elsewhere.Issuer() + "/keys"}),
		"jwk header with the attacker's key":   attacker.Sign(t, good, map[string]any{"jwk": attacker.JWK(t)}),
		"wrong iss":                            signed(jwt.MapClaims{"iss": "http://127.0.0.1:1"}),
		"wrong aud":                            signed(jwt.MapClaims{"aud": idp.ClientID()}),
		"expired":                              signed(jwt.MapClaims{"exp": now.Add(-time.Hour).Unix()}),
		"no kid":                               attacker.Sign(t, good, map[string]any{"kid": nil}),
	}
}

// hmacWithIssuerKey signs claims with HS256, the issuer's public key (as
// its JWKS publishes it, in PEM) taken as the secret.
func hmacWithIssuerKey(t *testing.T, idp *devidp.Provider, claims jwt.MapClaims) string {
	t.Helper()
	d, err := devidp.Discover(context.Background(), idp.Issuer())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(d.JWKS)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jwkset.JWKSMarshal
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("the issuer's key set: %v, %d keys", err, len(set.Keys))
	}
	jwk, err := jwkset.NewJWKFromMarshal(set.Keys[0], jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(jwk.Key())
	if err != nil {
		t.Fatal(err)
	}
	return oidctest.HS256(t, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), idp.KeyID(), claims)
}

// refusedLikeNoToken checks that each token is answered exactly as no
// token is: 401 UNAUTHORIZED, the same problem, on a booking.
func refusedLikeNoToken(t *testing.T, gw string, tokens map[string]string) {
	t.Helper()
	var want map[string]any
	if status := callInto(t, "POST", gw+"/api/appointments", "", "refused", `{"slotId":1}`, &want); status != 401 || want["code"] != "UNAUTHORIZED" {
		t.Fatalf("no token: %d %v", status, want)
	}
	for name, tok := range tokens {
		var got map[string]any
		status := callInto(t, "POST", gw+"/api/appointments", tok, "refused", `{"slotId":1}`, &got)
		if status != 401 || got["code"] != want["code"] || got["detail"] != want["detail"] || got["title"] != want["title"] {
			t.Errorf("%s: %d %v, want the same 401 as without a token: %v", name, status, got, want)
		}
	}
}

// callInto sends one request with a bearer token (none when empty) and an
// Idempotency-Key (none when empty), checks the answer against openapi.yaml
// and decodes it into out (unless nil).
func callInto(t *testing.T, method, url, token, key, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	checkAPI(t, req, resp.StatusCode, resp.Header, raw)
	if out != nil && len(raw) > 0 && json.Unmarshal(raw, out) != nil {
		t.Fatalf("%s %s: %d, not JSON: %s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode
}

func statusIs(url string, want int) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		return fmt.Errorf("GET %s: %d, want %d", url, resp.StatusCode, want)
	}
	return nil
}

// startBinary builds and starts a command of the workspace with only env
// (and PATH), until the test ends, once its log says started.
func startBinary(t *testing.T, name, pkg, started string, env ...string) {
	t.Helper()
	var log syncBuffer
	cmd := exec.Command(builtBinary(t, name, pkg))
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s logged:\n%s", name, log.String())
		}
	})
	poll.For(t, 60*time.Second, 50*time.Millisecond, func() error {
		if !bytes.Contains([]byte(log.String()), []byte(started)) {
			return fmt.Errorf("%s has not started", name)
		}
		return nil
	})
}
