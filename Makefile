# Every target works from the repository root on a fresh machine; see README.md.
GO          ?= go
MODULES     := $(shell $(GO) list -f '{{.Dir}}/...' -m)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
TEST_FLAGS  ?= -count=1 -timeout 30m

.PHONY: build test lint run loadtest bench

build:
	@mkdir -p bin
	$(GO) build -o bin/gateway ./gateway/cmd/gateway
	$(GO) build -o bin/booker ./booker/cmd/booker
	$(GO) build -o bin/loadtest ./loadtest/cmd/loadtest

# With go.work, `go test ./...` at the root sees no module: name each module's tree.
test:
	$(GO) test $(TEST_FLAGS) -v $(MODULES)

lint:
	$(GO) vet $(MODULES)
	$(GO) run $(STATICCHECK) $(MODULES)
