// Package tracing sets up OpenTelemetry tracing for either wing from the
// specification's own OTEL_* environment variables, and carries W3C trace
// context across NATS. Both wings share it because both follow the same
// outside contract: spans are exported over OTLP only when an endpoint is
// configured, sampled as OTEL_TRACES_SAMPLER says, and a wing names itself
// unless OTEL_SERVICE_NAME does.
package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Variables are the environment variables tracing reads, in each wing,
// besides its flags: the specification's own, as the outside contract says.
// The SDK and its OTLP exporters read more of the specification's (headers,
// timeouts, OTEL_RESOURCE_ATTRIBUTES, the batch processor's delays).
var Variables = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
	"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_SERVICE_NAME",
	"OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED"}

// Provider is a wing's tracer provider and what flushes it on shutdown.
// Each wing has its own rather than the process's global one, so that
// `make run` and the system tests, which run both wings in one process,
// still name each span's service rightly.
type Provider struct {
	trace.TracerProvider
	shutdown func(context.Context) error
}

// Enabled reports whether spans are exported.
func (p *Provider) Enabled() bool { return p.shutdown != nil }

// Shutdown exports the spans still buffered and stops the exporter.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil || p.shutdown == nil {
		return nil
	}
	return p.shutdown(ctx)
}

// Disabled is a provider whose spans record and export nothing.
func Disabled() *Provider { return &Provider{TracerProvider: noop.NewTracerProvider()} }

// Tracer is tp's tracer of the instrumentation scope; a nil tp traces
// nothing, so a wing built without tracing needs no provider to start.
func Tracer(tp trace.TracerProvider, scope string) trace.Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer(scope)
}

// FromEnv is the provider the environment configures for the service
// (termin-gateway or termin-booker, unless OTEL_SERVICE_NAME says
// otherwise): OTLP over the protocol OTEL_EXPORTER_OTLP_PROTOCOL names when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set,
// else Disabled. OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it
// off too. A protocol it does not know fails the start rather than
// silently tracing nothing.
func FromEnv(ctx context.Context, service string) (*Provider, error) {
	if !configured() {
		return Disabled(), nil
	}
	exp, err := exporter(ctx)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(service)), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	// The sampler is the SDK's own reading of OTEL_TRACES_SAMPLER and
	// OTEL_TRACES_SAMPLER_ARG (parentbased_always_on when unset).
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Provider{TracerProvider: tp, shutdown: tp.Shutdown}, nil
}

// configured reports whether the environment asks for spans to be exported.
func configured() bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// exporter is the OTLP exporter of the configured protocol; each reads its
// endpoint, headers and timeouts from the environment itself.
func exporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	protocol := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch protocol {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_PROTOCOL %q: want http/protobuf or grpc", protocol)
}
