package system_test

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// compose is the part of docker-compose.yml the test checks, as the
// Compose specification's own loader reads it (see loadCompose): anchors,
// merge keys and variables resolved as Docker Compose resolves them.
type compose struct {
	Services map[string]composeService
	Volumes  map[string]any
}

type composeService struct {
	Image       string
	Build       *composeBuild
	Command     []string
	Environment map[string]string
	DependsOn   map[string]struct{ Condition string }
	Healthcheck *struct{ Test []string }
	// Ports are host_ip:published:target (published:target without a host IP).
	Ports   []string
	Restart string
	// Volumes are source:target:mode, a bind mount's source as written.
	Volumes  []string
	Profiles []string
}

type composeBuild struct {
	Context    string
	Dockerfile string
}

// TestComposeFile checks the stack of docker-compose.yml without a Docker
// engine: the services, their health checks and restart policies, that every
// build and image makes sense, and that the NATS nodes form one JetStream
// cluster with the booking stream at three replicas.
func TestComposeFile(t *testing.T) {
	c := readCompose(t)
	for _, name := range []string{"postgres", "nats-1", "nats-2", "nats-3", "booker-1", "booker-2",
		"gateway-1", "gateway-2", "lb", "prometheus", "grafana"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("service %s missing", name)
		}
	}
	for name, svc := range c.Services {
		checkService(t, c, name, svc)
	}
	for _, name := range []string{"booker-1", "booker-2"} {
		checkBooker(t, c, name)
	}
	checkNATSCluster(t, c)
	checkScrapeTargets(t, c)
}

// checkService holds every long-running service to the same rules.
func checkService(t *testing.T, c compose, name string, svc composeService) {
	if svc.Image == "" || strings.HasSuffix(svc.Image, ":latest") || !strings.Contains(svc.Image, ":") {
		t.Errorf("%s: image %q is not pinned to a tag", name, svc.Image)
	}
	if svc.Build != nil {
		checkBuild(t, name, svc)
	}
	checkPorts(t, name, svc)
	for dep := range svc.DependsOn {
		if _, ok := c.Services[dep]; !ok {
			t.Errorf("%s depends on unknown service %s", name, dep)
		}
	}
	for _, v := range svc.Volumes {
		src := strings.Split(v, ":")[0]
		if strings.HasPrefix(src, "./") {
			if _, err := os.Stat(filepath.Join(repoRoot, src)); err != nil {
				t.Errorf("%s mounts %s: %v", name, src, err)
			}
		} else if _, ok := c.Volumes[src]; !ok {
			t.Errorf("%s mounts volume %s, not declared", name, src)
		}
	}
	if len(svc.Profiles) > 0 { // one-off tools (loadtest) neither restart nor report health
		return
	}
	if !slices.Contains([]string{"always", "unless-stopped", "on-failure"}, svc.Restart) {
		t.Errorf("%s: restart %q; want always, unless-stopped or on-failure", name, svc.Restart)
	}
	if svc.Healthcheck == nil || len(svc.Healthcheck.Test) < 2 {
		t.Errorf("%s has no health check", name)
	}
}

// checkBuild: a built service uses the repository's Dockerfile, which runs
// `make build`, and runs one of the binaries the Makefile builds.
func checkBuild(t *testing.T, name string, svc composeService) {
	if svc.Build.Context != "." || svc.Build.Dockerfile != "Dockerfile" {
		t.Errorf("%s: build %+v; want the repository's Dockerfile", name, *svc.Build)
	}
	docker, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(docker), "make build") || !strings.Contains(string(docker), "COPY go.work") {
		t.Errorf("Dockerfile does not copy the workspace and run make build")
	}
	if len(svc.Command) == 0 || !strings.Contains(string(makefile), "-o bin/"+svc.Command[0]+" ") ||
		!strings.Contains(string(docker), "/src/bin/"+svc.Command[0]) {
		t.Errorf("%s runs %v, not a binary the Makefile builds and the image ships", name, svc.Command)
	}
}

// checkBooker: the stream at three replicas, migrations on (under a lock),
// all three NATS nodes and the database by service name, readiness checked.
func checkBooker(t *testing.T, c compose, name string) {
	b := c.Services[name]
	env := b.Environment
	if env["STREAM_REPLICAS"] != "3" || env["MIGRATE"] != "1" {
		t.Errorf("%s: STREAM_REPLICAS=%q MIGRATE=%q; want 3 and 1", name, env["STREAM_REPLICAS"], env["MIGRATE"])
	}
	var hosts []string
	for _, u := range strings.Split(env["NATS_URL"], ",") {
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatalf("%s: NATS_URL: %v", name, err)
		}
		hosts = append(hosts, parsed.Hostname())
	}
	if !slices.Equal(hosts, []string{"nats-1", "nats-2", "nats-3"}) {
		t.Errorf("%s: NATS_URL %q; want the three nodes", name, env["NATS_URL"])
	}
	if db, err := url.Parse(env["DATABASE_URL"]); err != nil || db.Hostname() != "postgres" {
		t.Errorf("%s: DATABASE_URL %q; want the postgres service", name, env["DATABASE_URL"])
	}
	port := env["BOOKER_ADDR"][strings.LastIndex(env["BOOKER_ADDR"], ":"):]
	if !strings.Contains(strings.Join(b.Healthcheck.Test, " "), "127.0.0.1"+port+"/readyz") {
		t.Errorf("%s: health check %v does not ask /readyz on BOOKER_ADDR", name, b.Healthcheck.Test)
	}
}

// How soon a nats-server gives up its route to a node cut off by the
// network, as deploy/nats/nats.conf sets it and the partition test's nodes
// run: until then it queues every replicated write for the lost node.
const (
	routePingInterval  = time.Second
	routePingMax       = 3
	routeWriteDeadline = 3 * time.Second
)

// checkNATSCluster reads the nodes' configuration with nats-server's own
// parser, as each node would with its NATS_SERVER_NAME.
func checkNATSCluster(t *testing.T, c compose) {
	want := natsImageTag(t)
	for _, name := range []string{"nats-1", "nats-2", "nats-3"} {
		svc := c.Services[name]
		if svc.Image != want {
			t.Errorf("%s: image %s; the tests embed %s", name, svc.Image, want)
		}
		if !slices.Contains(svc.Volumes, "./deploy/nats/nats.conf:/etc/nats/nats.conf:ro") {
			t.Errorf("%s does not mount deploy/nats/nats.conf", name)
		}
		for k, v := range svc.Environment {
			t.Setenv(k, v)
		}
		opts, err := server.ProcessConfigFile(filepath.Join(repoRoot, "deploy/nats/nats.conf"))
		if err != nil {
			t.Fatalf("nats.conf: %v", err)
		}
		var routes []string
		for _, r := range opts.Routes {
			routes = append(routes, r.Hostname())
		}
		switch {
		case opts.ServerName != name:
			t.Errorf("%s: server_name %q", name, opts.ServerName)
		case !opts.JetStream || !opts.SyncAlways:
			t.Errorf("%s: jetstream %v, sync always %v; want both", name, opts.JetStream, opts.SyncAlways)
		case opts.Cluster.Name == "" || opts.Cluster.Port != 6222:
			t.Errorf("%s: cluster %+v", name, opts.Cluster)
		case !slices.Equal(routes, []string{"nats-1", "nats-2", "nats-3"}):
			t.Errorf("%s: routes %v; want the three nodes", name, routes)
		case opts.Cluster.PingInterval != routePingInterval || opts.Cluster.MaxPingsOut != routePingMax ||
			opts.Cluster.WriteDeadline != routeWriteDeadline:
			t.Errorf("%s: routes pinged every %v, given up after %d pings or a write blocked %v; want %v, %d, %v (as the partition test's nodes)",
				name, opts.Cluster.PingInterval, opts.Cluster.MaxPingsOut, opts.Cluster.WriteDeadline, routePingInterval, routePingMax, routeWriteDeadline)
		}
		checkNATSUsers(t, name, opts)
	}
}

// natsImageTag is the nats image of the nats-server minor the tests embed,
// read from this module's go.mod.
func natsImageTag(t *testing.T) string {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(mod)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "github.com/nats-io/nats-server/v2" {
			parts := strings.SplitN(strings.TrimPrefix(f[1], "v"), ".", 3)
			return "nats:" + parts[0] + "." + parts[1] + "-alpine"
		}
	}
	t.Fatal("nats-server is not required by go.mod")
	return ""
}

// checkScrapeTargets: Prometheus scrapes every gateway and booker at its address.
func checkScrapeTargets(t *testing.T, c compose) {
	var prom struct {
		RuleFiles     []string `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, "deploy/prometheus/prometheus.yml", &prom)
	targets := map[string]bool{}
	for _, sc := range prom.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			for _, tg := range st.Targets {
				targets[tg] = true
			}
		}
	}
	for name, svc := range c.Services {
		addr := svc.Environment["GATEWAY_ADDR"] + svc.Environment["BOOKER_ADDR"]
		if addr != "" && !targets[name+addr[strings.LastIndex(addr, ":"):]] {
			t.Errorf("prometheus does not scrape %s (%s)", name, addr)
		}
	}
	if !slices.Contains(prom.RuleFiles, "/etc/prometheus/alerts.yml") {
		t.Errorf("prometheus does not load the alert rules")
	}
}
