#!/usr/bin/env bash
# Prints the path of a Jaeger v2 binary (cmd/jaeger v1.75.0, the version
# tools/jaeger/go.mod pins as a Go tool), building it first if it is missing.
# The build takes about six minutes on two cores, so it is done once, into
# the user's cache ($XDG_CACHE_HOME or ~/.cache, under termin/; JAEGER_BIN
# overrides the path), where the tracing test, make test and CI find it
# from any checkout on the machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(awk '$1=="github.com/jaegertracing/jaeger" {print $2; exit}' "$root/tools/jaeger/go.mod")"
bin="${JAEGER_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/termin/jaeger-$version}"
if [ ! -x "$bin" ]; then
  echo "jaeger.sh: building Jaeger $version into $bin (about six minutes, once)" >&2
  mkdir -p "$(dirname "$bin")"
  (cd "$root/tools/jaeger" && GOWORK=off "${GO:-go}" build -o "$bin.tmp" github.com/jaegertracing/jaeger/cmd/jaeger)
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
