package system_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realmExport is the part of deploy/keycloak/termin-realm.json the test reads.
type realmExport struct {
	Realm string `json:"realm"`
	Roles struct {
		Realm []struct{ Name string } `json:"realm"`
	} `json:"roles"`
	DefaultRole struct {
		Composites struct {
			Realm []string `json:"realm"`
		} `json:"composites"`
	} `json:"defaultRole"`
	Clients []realmClient `json:"clients"`
}

type realmClient struct {
	ClientID                  string            `json:"clientId"`
	PublicClient              bool              `json:"publicClient"`
	StandardFlowEnabled       bool              `json:"standardFlowEnabled"`
	ImplicitFlowEnabled       bool              `json:"implicitFlowEnabled"`
	DirectAccessGrantsEnabled bool              `json:"directAccessGrantsEnabled"`
	RedirectURIs              []string          `json:"redirectUris"`
	WebOrigins                []string          `json:"webOrigins"`
	Attributes                map[string]string `json:"attributes"`
	OptionalClientScopes      []string          `json:"optionalClientScopes"`
	ProtocolMappers           []struct {
		ProtocolMapper string            `json:"protocolMapper"`
		Config         map[string]string `json:"config"`
	} `json:"protocolMappers"`
}

// TestKeycloakRealmFitsTheGateways: the realm compose imports is the one the
// gateways and the pages use — its issuer is OIDC_ISSUER (Keycloak's
// hostname and the realm's name), the gateways read its discovery document
// inside the network, its client is OIDC_CLIENT_ID (public, Authorization
// Code with PKCE S256 only, the pages' addresses), its access tokens name
// OIDC_AUDIENCE and carry the four roles at OIDC_ROLES_CLAIM and the scope
// attributes doctorId and practiceId, and a new person is a patient.
func TestKeycloakRealmFitsTheGateways(t *testing.T) {
	t.Parallel()
	c := readCompose(t)
	gw, kc := c.Services["gateway-1"].Environment, c.Services["keycloak"]
	raw, err := os.ReadFile(filepath.Join(repoRoot, "deploy/keycloak/termin-realm.json"))
	if err != nil {
		t.Fatal(err)
	}
	var realm realmExport
	if err := json.Unmarshal(raw, &realm); err != nil {
		t.Fatal(err)
	}
	public := flagValue(kc.Command, "--hostname")
	if want := public + "/realms/" + realm.Realm; gw["OIDC_ISSUER"] != want || public == "" {
		t.Errorf("OIDC_ISSUER %q, want Keycloak's hostname and the realm: %q", gw["OIDC_ISSUER"], want)
	}
	if want := "http://keycloak:8080/realms/" + realm.Realm + "/.well-known/openid-configuration"; gw["OIDC_DISCOVERY_URL"] != want {
		t.Errorf("OIDC_DISCOVERY_URL %q, want %q", gw["OIDC_DISCOVERY_URL"], want)
	}
	if !slices.Contains(kc.Command, "--import-realm") || !slices.Contains(kc.Command, "--hostname-backchannel-dynamic=true") ||
		!slices.Contains(kc.Volumes, "./deploy/keycloak/termin-realm.json:/opt/keycloak/data/import/termin-realm.json:ro") {
		t.Errorf("keycloak does not import the realm with a backchannel for the gateways: %v %v", kc.Command, kc.Volumes)
	}
	var roles []string
	for _, r := range realm.Roles.Realm {
		roles = append(roles, r.Name)
	}
	if slices.Sort(roles); !slices.Equal(roles, []string{"admin", "doctor", "patient", "staff"}) {
		t.Errorf("realm roles %v, want the gateway's four", roles)
	}
	if !slices.Contains(realm.DefaultRole.Composites.Realm, "patient") {
		t.Error("a new person is not a patient by default")
	}
	i := slices.IndexFunc(realm.Clients, func(c realmClient) bool { return c.ClientID == gw["OIDC_CLIENT_ID"] })
	if i < 0 {
		t.Fatalf("the realm has no client %q (OIDC_CLIENT_ID)", gw["OIDC_CLIENT_ID"])
	}
	checkPagesClient(t, realm.Clients[i], public, gw)
}

// checkPagesClient holds the pages' client to what the pages and the
// gateway expect of it.
func checkPagesClient(t *testing.T, cl realmClient, public string, gw map[string]string) {
	t.Helper()
	if !cl.PublicClient || !cl.StandardFlowEnabled || cl.ImplicitFlowEnabled || cl.DirectAccessGrantsEnabled ||
		cl.Attributes["pkce.code.challenge.method"] != "S256" || !slices.Contains(cl.OptionalClientScopes, "offline_access") {
		t.Errorf("client %s: want public, Authorization Code with PKCE S256 only, offline_access for renewal: %+v", cl.ClientID, cl)
	}
	pages := []string{public + "/", public + "/praxis"}
	if !slices.Equal(cl.RedirectURIs, pages) || !slices.Equal(strings.Split(cl.Attributes["post.logout.redirect.uris"], "##"), pages) {
		t.Errorf("client %s: redirect URIs %v and sign-out URIs %q, want the pages %v", cl.ClientID, cl.RedirectURIs,
			cl.Attributes["post.logout.redirect.uris"], pages)
	}
	if u, err := url.Parse(public); err != nil || !slices.Equal(cl.WebOrigins, []string{u.Scheme + "://" + u.Host}) {
		t.Errorf("client %s: web origins %v, want the pages' origin", cl.ClientID, cl.WebOrigins)
	}
	found := map[string]bool{}
	for _, m := range cl.ProtocolMappers {
		inAccess := m.Config["access.token.claim"] == "true"
		switch {
		case m.ProtocolMapper == "oidc-audience-mapper" && m.Config["included.custom.audience"] == gw["OIDC_AUDIENCE"] && inAccess:
			found["audience"] = true
		case m.ProtocolMapper == "oidc-usermodel-realm-role-mapper" && m.Config["claim.name"] == gw["OIDC_ROLES_CLAIM"] &&
			m.Config["multivalued"] == "true" && inAccess:
			found["roles"] = true
		case m.ProtocolMapper == "oidc-usermodel-attribute-mapper" && inAccess && m.Config["user.attribute"] == m.Config["claim.name"]:
			found[m.Config["claim.name"]] = true
		}
	}
	for _, want := range []string{"audience", "roles", "doctorId", "practiceId"} {
		if !found[want] {
			t.Errorf("client %s: no mapper puts %s into the access token as the gateway reads it", cl.ClientID, want)
		}
	}
}

// flagValue is the value of a --name=value argument, "" without one.
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}
