package system_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"termin/system"
)

// TestComposeRefusesWithoutSecrets: with all the secrets set the Compose
// loader takes the file; with any one unset it refuses, naming that one;
// with none set it names every secret and nothing else; and no secret has
// a default in the file.
func TestComposeRefusesWithoutSecrets(t *testing.T) {
	t.Parallel()
	if _, err := loadCompose(testSecrets()); err != nil {
		t.Fatalf("docker-compose.yml with every secret set: %v", err)
	}
	for _, name := range composeSecrets {
		env := testSecrets()
		delete(env, name)
		if missing := refusedFor(t, env); !slices.Equal(missing, []string{name}) {
			t.Errorf("without %s Compose refuses for %v, want [%s]", name, missing, name)
		}
	}
	want := slices.Sorted(slices.Values(composeSecrets))
	if missing := refusedFor(t, nil); !slices.Equal(missing, want) {
		t.Errorf("with an empty environment Compose refuses for %v, want %v", missing, want)
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`\$\{([A-Z0-9_]+):-([^}]+)\}`).FindAllSubmatch(raw, -1) {
		if regexp.MustCompile(`PASSWORD|SECRET|TOKEN`).Match(m[1]) {
			t.Errorf("%s has a default value", m[0])
		}
	}
}

// refusedFor loads the file with env and returns the variables whose
// absence the loader names, sorted; it fails the test when the file loads.
func refusedFor(t *testing.T, env map[string]string) []string {
	t.Helper()
	_, err := loadCompose(env)
	if err == nil {
		t.Fatalf("docker-compose.yml loads with only %v set", slices.Sorted(maps.Keys(env)))
	}
	var missing []string
	for _, m := range regexp.MustCompile(`required variable ([A-Z0-9_]+) is missing`).FindAllStringSubmatch(err.Error(), -1) {
		if !slices.Contains(missing, m[1]) {
			missing = append(missing, m[1])
		}
	}
	slices.Sort(missing)
	return missing
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
