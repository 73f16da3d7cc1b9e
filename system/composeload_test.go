package system_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
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

// loadCompose reads docker-compose.yml with the loader of the Compose
// specification (compose-go, which `docker compose` itself uses): its
// schema, its interpolation of ${VAR:?}, ${VAR:-}, anchors and merge keys,
// every profile, with env as the whole environment (no .env file, nothing
// of the test's own). A file Docker Compose would refuse is an error here.
func loadCompose(env map[string]string) (*types.Project, error) {
	var list []string
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	opts, err := cli.NewProjectOptions([]string{repoRoot + "/docker-compose.yml"}, cli.WithEnv(list),
		cli.WithWorkingDirectory(repoRoot), cli.WithResolvedPaths(false), cli.WithProfiles([]string{"*"}))
	if err != nil {
		return nil, err
	}
	return opts.LoadProject(context.Background())
}

// readCompose loads the file with every secret set, as the checks read it.
func readCompose(t *testing.T) compose {
	t.Helper()
	p, err := loadCompose(testSecrets())
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	c := compose{Services: map[string]composeService{}, Volumes: map[string]any{}}
	for name := range p.Volumes {
		c.Volumes[name] = p.Volumes[name]
	}
	for name, svc := range p.Services {
		c.Services[name] = serviceOf(svc)
	}
	return c
}

// serviceOf is the loaded service in the form the checks read.
func serviceOf(svc types.ServiceConfig) composeService {
	out := composeService{Image: svc.Image, Command: svc.Command, Restart: svc.Restart, Profiles: svc.Profiles,
		Environment: map[string]string{}, DependsOn: map[string]struct{ Condition string }{}}
	if svc.Build != nil {
		out.Build = &composeBuild{Context: svc.Build.Context, Dockerfile: svc.Build.Dockerfile}
	}
	for k, v := range svc.Environment {
		if v != nil {
			out.Environment[k] = *v
		}
	}
	for dep, d := range svc.DependsOn {
		out.DependsOn[dep] = struct{ Condition string }{d.Condition}
	}
	if svc.HealthCheck != nil {
		out.Healthcheck = &struct{ Test []string }{svc.HealthCheck.Test}
	}
	for _, p := range svc.Ports {
		port := fmt.Sprintf("%s:%d", p.Published, p.Target)
		if p.HostIP != "" {
			port = p.HostIP + ":" + port
		}
		out.Ports = append(out.Ports, port)
	}
	for _, v := range svc.Volumes {
		out.Volumes = append(out.Volumes, v.String())
	}
	return out
}
