package system_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"
	"termin/system"
)

// composeSecrets are the variables compose must refuse to start without.
var composeSecrets = []string{"POSTGRES_PASSWORD", "AUTH_SECRET", "NATS_GATEWAY_PASSWORD",
	"NATS_BOOKER_PASSWORD", "NATS_OPS_PASSWORD", "GRAFANA_ADMIN_PASSWORD", "KEYCLOAK_ADMIN_PASSWORD"}

// testSecrets sets every secret, so the compose file interpolates.
func testSecrets() map[string]string {
	env := map[string]string{}
	for _, name := range composeSecrets {
		env[name] = "test-" + strings.ToLower(name) + "-0123456789abcdef0123456789"
	}
	return env
}

// composeInterpolation is ${NAME}, ${NAME:-default} or ${NAME:?message}.
var composeInterpolation = regexp.MustCompile(`\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}`)

// interpolate substitutes variables as Docker Compose does and returns the
// names whose ${NAME:?} found no value: compose refuses to start then.
func interpolate(raw []byte, env map[string]string) ([]byte, []string) {
	var missing []string
	out := composeInterpolation.ReplaceAllFunc(raw, func(m []byte) []byte {
		p := composeInterpolation.FindSubmatch(m)
		name, op, arg := string(p[1]), string(p[2]), string(p[3])
		if v := env[name]; v != "" {
			return []byte(v)
		}
		if op == "?" && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
		if op == "-" {
			return []byte(arg)
		}
		return nil
	})
	return out, missing
}

func readCompose(t *testing.T) compose {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	raw, missing := interpolate(raw, testSecrets())
	if len(missing) > 0 {
		t.Fatalf("docker-compose.yml needs %v beyond the known secrets", missing)
	}
	var c compose
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// TestComposeRefusesWithoutSecrets: with an empty environment compose stops
// on every secret, and no secret has a default.
func TestComposeRefusesWithoutSecrets(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	_, missing := interpolate(raw, nil)
	sort.Strings(missing)
	want := slices.Clone(composeSecrets)
	sort.Strings(want)
	if !slices.Equal(missing, want) {
		t.Errorf("compose refuses to start without %v, want %v", missing, want)
	}
	for _, m := range composeInterpolation.FindAllSubmatch(raw, -1) {
		if regexp.MustCompile(`PASSWORD|SECRET|TOKEN`).Match(m[1]) && string(m[2]) == "-" && len(m[3]) > 0 {
			t.Errorf("%s has a default value", m[0])
		}
	}
}

// checkPorts: only nginx is published to other hosts, Grafana on loopback
// with a login; Prometheus without its lifecycle API.
func checkPorts(t *testing.T, name string, svc composeService) {
	switch name {
	case "lb":
	case "grafana":
		for _, p := range svc.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("grafana publishes %s beyond the host's loopback", p)
			}
		}
		if svc.Environment["GF_AUTH_ANONYMOUS_ENABLED"] != "false" {
			t.Errorf("grafana: anonymous access %q", svc.Environment["GF_AUTH_ANONYMOUS_ENABLED"])
		}
	default:
		if len(svc.Ports) > 0 {
			t.Errorf("%s publishes %v on the host", name, svc.Ports)
		}
	}
	if name == "prometheus" && slices.Contains(svc.Command, "--web.enable-lifecycle") {
		t.Error("prometheus: --web.enable-lifecycle lets anyone who reaches it stop it")
	}
	if url := svc.Environment["NATS_URL"]; url != "" {
		user := map[string]string{"gateway": "gateway:", "booker": "booker:"}[strings.TrimRight(name, "-0123456789")]
		if user == "" || strings.Count(url, "//"+user) != 3 {
			t.Errorf("%s: NATS_URL %q does not log in as its own user on each node", name, url)
		}
	}
}

// checkNATSUsers: the cluster admits only its users, each with exactly the
// permissions make run's embedded server grants.
func checkNATSUsers(t *testing.T, name string, opts *server.Options) {
	if opts.NoAuthUser != "" || len(opts.Users) == 0 {
		t.Errorf("%s: anonymous clients admitted (users %d, no_auth_user %q)", name, len(opts.Users), opts.NoAuthUser)
	}
	want := system.ServicePermissions("", "booking")
	for _, u := range opts.Users {
		p, ok := want[u.Username]
		if !ok {
			if u.Username != "ops" || u.Permissions != nil {
				t.Errorf("%s: unexpected user %s", name, u.Username)
			}
			continue
		}
		if u.Password == "" || strings.HasPrefix(u.Password, "$") {
			t.Errorf("%s: user %s has no password from the environment", name, u.Username)
		}
		got := u.Permissions
		if got == nil || !slices.Equal(got.Publish.Allow, p.Publish) || !slices.Equal(got.Subscribe.Allow, p.Subscribe) ||
			(got.Response != nil) != p.Responses {
			t.Errorf("%s: user %s permissions %+v differ from system.ServicePermissions %+v", name, u.Username, got, p)
		}
		delete(want, u.Username)
	}
	if len(want) > 0 {
		t.Errorf("%s: users missing: %v", name, want)
	}
}

// TestNginxServesOnlyAPIAndPage: the balancer passes /api, the pages with
// their assets and Keycloak's realm with its login pages' files; everything
// else (/metrics, /readyz, Keycloak's /admin) ends at nginx.
func TestNginxServesOnlyAPIAndPage(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "deploy/nginx/nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	var proxied []string
	text := string(raw)
	starts := regexp.MustCompile(`location\s+([^{]+?)\s*\{`).FindAllStringSubmatchIndex(text, -1)
	for i, m := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		path, body := text[m[2]:m[3]], text[m[1]:end]
		if strings.Contains(body, "proxy_pass") {
			proxied = append(proxied, path)
		}
		if path == "/" && !strings.Contains(body, "return 404") {
			t.Error("location / does not end at nginx with 404")
		}
	}
	if want := []string{"/api/", "= /", "= /praxis", "/assets/", "/realms/", "/resources/"}; !slices.Equal(proxied, want) {
		t.Errorf("nginx proxies %v, want exactly %v", proxied, want)
	}
}
