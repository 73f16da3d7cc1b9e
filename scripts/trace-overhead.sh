#!/usr/bin/env bash
# Tracing's cost in the deployed layout (bin/gateway, bin/booker and a
# nats-server as processes of their own, as `make run-deployed` runs them):
# every doctor's opening at 1,000 clicks/s for 20 s (`make loadtest-deployed`'s
# first scenario), with tracing off and with both wings exporting one booking
# in ten (parentbased_traceidratio 0.1) over OTLP/HTTP to a local Jaeger,
# alternating off and on ROUNDS times in one run so that the machine's
# drift falls on both alike. Each load test's report (CPU per confirmed
# booking, per process) goes to OUT; the summary at the end lists the CPU
# tables side by side. Jaeger's own CPU is not charged: the CPU table counts
# the gateway, the booker, NATS and PostgreSQL only.
#
#   make trace-overhead     (or ROUNDS=3 RATIO=0.1 LOADTEST_RATE=1000 scripts/trace-overhead.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-2}
ratio=${RATIO:-0.1}
rate=${LOADTEST_RATE:-1000}
otlp_port=${JAEGER_OTLP_PORT:-14318}
query_port=${JAEGER_QUERY_PORT:-16696}
out=${OUT:-loadtest-results/trace-overhead-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

make build-deployed
jaeger=$(./scripts/jaeger.sh)
cat >"$out/jaeger.yaml" <<YAML
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces: {receivers: [otlp], processors: [batch], exporters: [jaeger_storage_exporter]}
  telemetry: {metrics: {level: none}, logs: {level: warn}}
extensions:
  jaeger_query:
    enable_tracing: false
    storage: {traces: memstore}
    http: {endpoint: "127.0.0.1:${query_port}"}
    grpc: {endpoint: "127.0.0.1:$((query_port + 1))"}
  jaeger_storage:
    backends: {memstore: {memory: {max_traces: 100000}}}
receivers:
  otlp: {protocols: {http: {endpoint: "127.0.0.1:${otlp_port}"}}}
processors:
  batch:
exporters:
  jaeger_storage_exporter: {trace_storage: memstore}
YAML
"$jaeger" --config "$out/jaeger.yaml" >"$out/jaeger.log" 2>&1 &
jaeger_pid=$!
run_pid=
cleanup() {
  [ -n "$run_pid" ] && kill -INT "$run_pid" 2>/dev/null && wait "$run_pid" 2>/dev/null || true
  kill "$jaeger_pid" 2>/dev/null || true
}
trap cleanup EXIT

# one LABEL ROUND: the deployed layout up (tracing on for LABEL=on), the load
# test against it, then down again.
one() {
  local label=$1 round=$2
  rm -f .data/run.env
  if [ "$label" = on ]; then
    env OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:${otlp_port}" OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
      OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG="$ratio" \
      RUN_LAYOUT=processes ./bin/run >"$out/run-$label-$round.log" 2>&1 &
  else
    env -u OTEL_EXPORTER_OTLP_ENDPOINT -u OTEL_EXPORTER_OTLP_TRACES_ENDPOINT \
      RUN_LAYOUT=processes ./bin/run >"$out/run-$label-$round.log" 2>&1 &
  fi
  run_pid=$!
  for _ in $(seq 300); do [ -f .data/run.env ] && break; sleep 1; done
  [ -f .data/run.env ] || { echo "trace-overhead: the deployed layout did not come up; see $out/run-$label-$round.log" >&2; exit 1; }
  echo "== tracing $label, round $round"
  ./bin/loadtest -scenario opening-all -rate "$rate" -duration 20s -impatient -1 ${LOADTEST_FLAGS:-} | tee "$out/loadtest-$label-$round.txt"
  kill -INT "$run_pid"
  wait "$run_pid" || true
  run_pid=
}

for round in $(seq "$rounds"); do
  one off "$round"
  one on "$round"
done
# Both wings must have exported, or the "on" runs measured nothing.
echo "== services that sent traces to Jaeger: $(curl -s "http://127.0.0.1:${query_port}/api/services")"
echo "== CPU per confirmed booking (reports in $out)"
for f in "$out"/loadtest-*.txt; do
  echo "-- $(basename "$f" .txt)"
  awk '/[Cc][Pp][Uu]/,/^$/' "$f"
done
