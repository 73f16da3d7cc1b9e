package app

import (
	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"
)

// tracedSQL has the pool's statements traced on tp (github.com/exaring/otelpgx):
// a span per statement, batch and connection acquire under the caller's
// span (the batch's), with the statement's text and never its parameters,
// which hold patients' data. Statements outside a sampled span are not
// traced. A nil tp changes nothing.
func tracedSQL(tp trace.TracerProvider) func(*pgxpool.Config) {
	return func(cfg *pgxpool.Config) {
		if tp != nil {
			cfg.ConnConfig.Tracer = otelpgx.NewTracer(otelpgx.WithTracerProvider(tp),
				otelpgx.WithDisableConnectionDetailsInAttributes())
		}
	}
}
