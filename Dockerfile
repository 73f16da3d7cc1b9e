# syntax=docker/dockerfile:1
# One image for the three binaries (gateway, booker, loadtest); docker-compose.yml
# picks the binary per service. Build: docker build -t termin:local .

FROM golang:1.26 AS build
WORKDIR /src
# The workspace and its modules' manifests first, so that the module download
# is cached until a go.mod or go.sum changes.
COPY go.work go.work.sum ./
COPY shared/go.mod shared/
COPY booker/go.mod booker/go.sum booker/
COPY gateway/go.mod gateway/go.sum gateway/
COPY migrations/go.mod migrations/go.sum migrations/
COPY loadtest/go.mod loadtest/go.sum loadtest/
COPY system/go.mod system/go.sum system/
RUN --mount=type=cache,target=/go/pkg/mod \
    for m in booker gateway migrations loadtest; do (cd "$m" && GOWORK=off go mod download) || exit 1; done
COPY . .
# Static binaries (no cgo) run on the small runtime image; timetzdata embeds
# the zone database, so CLINIC_TZ works even without tzdata.
ENV CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false -tags=timetzdata"
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    make build

FROM alpine:3.22
# ca-certificates for TLS to PostgreSQL, SMTP and the SMS webhook; wget (busybox)
# is what the compose health checks call.
RUN apk add --no-cache ca-certificates tzdata \
    && adduser -D -H -u 10001 termin
COPY --from=build /src/bin/gateway /src/bin/booker /src/bin/loadtest /usr/local/bin/
USER termin
ENV GATEWAY_ADDR=0.0.0.0:8080 BOOKER_ADDR=0.0.0.0:9091
EXPOSE 8080 9091
CMD ["gateway"]
