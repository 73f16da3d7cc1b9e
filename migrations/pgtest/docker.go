package pgtest

import (
	"context"
	"fmt"
	"os"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// fromDocker starts a PostgreSQL container when a Docker engine answers. The
// container lives as long as the test process; testcontainers' reaper removes it.
func fromDocker(ctx context.Context) (dbURL string, ok bool) {
	if !dockerHealthy(ctx) {
		return "", false
	}
	c, err := tcpostgres.Run(ctx, "postgres:16-alpine",
		tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword("postgres"),
		tcpostgres.WithDatabase("postgres"),
		tcpostgres.BasicWaitStrategies(),
	)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: Docker answers but the PostgreSQL container failed, trying the next source: %v\n", err)
		return "", false
	}
	u, err := c.ConnectionString(ctx, "sslmode=disable")
	return u, err == nil
}

func dockerHealthy(ctx context.Context) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false // testcontainers panics on some machines without Docker
		}
	}()
	p, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return false
	}
	defer p.Close()
	return p.Health(ctx) == nil
}
