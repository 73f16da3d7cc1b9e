# Every target works from the repository root on a fresh machine; see README.md.
GO          ?= go
MODULES     := $(shell $(GO) list -f '{{.Dir}}/...' -m)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
TEST_FLAGS  ?= -count=1 -timeout 30m

.PHONY: build prereqs test lint run stop reset loadtest loadtest-all hotslot-compare bench build-deployed run-deployed loadtest-deployed loadtest-day day-compare trace-overhead

build:
	@mkdir -p bin
	$(GO) build -o bin/gateway ./gateway/cmd/gateway
	$(GO) build -o bin/booker ./booker/cmd/booker
	$(GO) build -o bin/loadtest ./loadtest/cmd/loadtest

# Finds or installs what the tests need (PostgreSQL's server binaries, psql,
# curl, nats-server, Chromium): apt-get on Debian/Ubuntu as root or with
# password-less sudo, Homebrew on macOS; elsewhere it stops at once, printing
# the command to run. See scripts/prereqs.sh.
prereqs:
	@./scripts/prereqs.sh

# With go.work, `go test ./...` at the root sees no module: name each module's
# tree. The modules whose packages take longest go first (system, loadtest),
# and four test binaries run at once (-p 4): most tests wait on timers and
# I/O, not on the two cores; pgtest bounds the test databases alive at once. gotestsum shows the packages under way and the tests passed
# so far (one line per test when the output is not a terminal), then one
# summary line; make's exit status is non-zero when a test fails.
# GOTESTSUM_JSONFILE=file keeps every event, with per-test timings.
# A test that fails is run once more, alone; one that fails again fails
# make test. One that passes the second time is named in the last lines
# (from .test-reruns) as flaky: timings on two shared cores are noisy, and
# a flaky test is a defect to fix, not a reason to lose the run. More than
# three failures, or a data race, are not run again.
GOTESTSUM   := $(GO) run gotest.tools/gotestsum@v1.13.0
FIRST       := %/system/... %/loadtest/...
TEST_PKGS    = $(foreach m,$(FIRST),$(filter $(m),$(MODULES))) $(filter-out $(FIRST),$(MODULES))
TEST_FORMAT ?=

test: prereqs jaeger
	@fmt='$(TEST_FORMAT)'; [ -n "$$fmt" ] || { [ -t 1 ] && fmt=dots-v2 || fmt=testname; }; \
	$(GOTESTSUM) --format "$$fmt" --format-hide-empty-pkg --hide-summary=skipped \
		--rerun-fails=1 --rerun-fails-max-failures=3 --rerun-fails-abort-on-data-race \
		--rerun-fails-report=.test-reruns --packages='$(TEST_PKGS)' \
		--post-run-command 'sh scripts/testsummary.sh' -- -p 4 $(TEST_FLAGS)

.PHONY: jaeger
# Jaeger v2 (cmd/jaeger, the version tools/jaeger/go.mod pins as a Go tool),
# which the tracing test starts: built once into ~/.cache/termin, about six
# minutes on two cores the first time, found there afterwards. See
# scripts/jaeger.sh.
jaeger:
	@GO='$(GO)' ./scripts/jaeger.sh >/dev/null

.PHONY: test-clock
# The date- and time-sensitive tests again at chosen instants in
# Europe/Berlin (the small hours, 06:59:59 and 07:00:00.5, a Sunday, both
# daylight-saving changes, the turn of the year, 29 February): each test's
# clock starts at TEST_CLOCK. About three minutes. See scripts/testclock.sh.
test-clock: prereqs
	@GO='$(GO)' ./scripts/testclock.sh

.PHONY: failover-test partition-test
# The database's machine lost mid-burst (about 100 s; build tag failover, so
# `make test` leaves it out): a primary and a synchronous standby from initdb
# on free ports, the primary killed -9, the standby promoted; a real
# Prometheus must fire the alerts. Needs PostgreSQL's server binaries and
# prometheus (make prereqs). See docs/failures.md.
failover-test: prereqs
	$(GO) test -tags failover $(TEST_FLAGS) -v -run 'TestFailoverPrimaryLostMidBurst' ./system/

# A NATS node cut off by the network mid-burst, the stream's leader and then a
# follower: three nats-servers in network namespaces of their own. Linux and
# root only (it fails, saying why, elsewhere). See docs/failures.md.
partition-test: prereqs
	$(GO) test -tags partition $(TEST_FLAGS) -v -run 'TestPartition' ./system/

.PHONY: cluster-test
# Three nats-servers clustered on loopback and two gateways: with two
# bookers, a NATS node is restarted mid-burst; with three booker processes,
# one is killed -9 mid-burst and a fourth joins (about 30 s; `make test`
# runs them too).
cluster-test:
	$(GO) test $(TEST_FLAGS) -v -run 'TestClusterSurvivesNodeRestart|TestBookersScaleOutByPartition' ./system/

# The whole system in the foreground: PostgreSQL and NATS found or started,
# migrations, demo data, a booker and a gateway; its first lines say where.
# Ctrl-C stops it and what it started: bin/run exits 0, but make itself,
# interrupted too, dies of SIGINT (a shell shows status 130); no recipe can
# change that without breaking Ctrl-Z. A built binary rather than `go run`,
# whose own exit status after Ctrl-C would be 1.
run:
	@mkdir -p bin
	@echo "building bin/run (the first build takes a minute or so)…"
	@$(GO) build -o bin/run ./system/cmd/run
	@exec ./bin/run

# The deployed layout on this machine: bin/gateway, bin/booker and a
# nats-server (built from the version the tests embed) as processes of their
# own, configured as docker-compose.yml configures them (the NATS store
# fsyncs before every acknowledgement), with `make run`'s PostgreSQL, demo
# and tokens. .data/run.env names their pids, which the load test's CPU
# table then measures.
build-deployed: build
	$(GO) build -o bin/nats-server github.com/nats-io/nats-server/v2
	$(GO) build -o bin/run ./system/cmd/run

run-deployed: build-deployed
	@RUN_LAYOUT=processes exec ./bin/run

# Both scenarios against a running `make run-deployed`: every doctor's
# opening at 1,000 clicks/s for 20 s, one click per patient (LOADTEST_RATE
# for another rate), and the same load against the seed's design in the
# same run (served by bin/loadtest), then the popular doctor's opening at
# 5,000 clicks/s. The CPU tables measure the three processes by the pids in .data/run.env.
loadtest-deployed: build
	./bin/loadtest -scenario opening-all -rate $(or $(LOADTEST_RATE),1000) -duration 20s -impatient -1 -against-seed $(LOADTEST_FLAGS)
	./bin/loadtest -scenario opening $(LOADTEST_FLAGS)

# The clinic's fortnight at 50 reads per click against a running `make
# run-deployed`: 2,000 doctors x 40 slots x 14 days, LOADTEST_RATE clicks/s
# (default 20) and fifty times as many reads, half of them searches (a
# specialty in a town), half slot lists. The report gives the reads' and the
# searches' latencies and each process's CPU.
loadtest-day: build
	./bin/loadtest -scenario day -rate $(or $(LOADTEST_RATE),20) -duration 60s $(LOADTEST_FLAGS)

# The same day twice in one run: through the running system, then against
# the seed's design (served by bin/loadtest, its reads cached in the Redis of
# LOADTEST_REDIS_URL, default 127.0.0.1:6379, for 5 s): both legs' reads
# p99, rate and CPU per read side by side.
day-compare: build
	./bin/loadtest -scenario day-compare -rate $(or $(LOADTEST_RATE),20) -duration 60s $(LOADTEST_FLAGS)

# Tracing's cost: the deployed layout's CPU per booking at 1,000 clicks/s
# (every doctor's opening, as loadtest-deployed's first run) with tracing off
# and with both wings tracing one booking in ten to a local Jaeger,
# alternating ROUNDS times in one run. See scripts/trace-overhead.sh.
trace-overhead:
	./scripts/trace-overhead.sh

# Stops a `make run` of this directory from another shell, and the private
# PostgreSQL cluster under .data/ if a killed run left it running.
stop:
	@mkdir -p bin
	@$(GO) build -o bin/run ./system/cmd/run
	@./bin/run stop

# Returns make run's data to its first state, saying what it drops: stops a
# run of this directory, drops its database wherever it lives (DATABASE_URL's;
# else database termin on the server at 127.0.0.1:5432; else the private
# cluster) and removes .data (the cluster, the message queue's store, the
# local mailbox, the tokens). The next make run starts as on a fresh machine.
reset:
	@mkdir -p bin
	@$(GO) build -o bin/run ./system/cmd/run
	@./bin/run reset

# Replays the 7:00 opening burst (5,000 clicks/s for 30 s) against a running
# `make run` and checks the database; it finds the run's gateway and database
# in .data/run.env. LOADTEST_FLAGS adds flags (see bin/loadtest -h).
loadtest: build
	./bin/loadtest -scenario opening $(LOADTEST_TARGET) $(LOADTEST_FLAGS)

# The processes whose CPU the report charges per booking. While `make run`
# runs here, bin/loadtest measures its one process (gateway, booker and the
# embedded NATS; the pid in .data/run.pid) and the PostgreSQL server of its
# database, and nothing else. For bin/gateway + bin/booker + nats-server
# name them: LOADTEST_PROCS='-system-proc= -gateway-proc=1234 -booker-proc=1235 -nats-proc=1236'.
LOADTEST_PROCS ?=
# The gateway, booker and database come from .data/run.env, as for `make loadtest`.
LOADTEST_TARGET = $(LOADTEST_PROCS)

# 07:00 for the whole clinic against a running `make run`: 2,000 doctors x 40
# slots open at once, 1,000 clicks/s for 20 s spread over them; the report
# gives confirmed/s, the backlog, decision latency and the CPU each process
# spent per confirmed booking.
loadtest-all: build
	./bin/loadtest -scenario opening-all -rate 1000 -duration 20s $(LOADTEST_TARGET) $(LOADTEST_FLAGS)

# The hot slot through the whole path and through the seed's
# one-transaction-per-request design (served by bin/loadtest itself), the same
# ramp in the same run, against a running `make run`: both knees and the ratio.
hotslot-compare: build
	./bin/loadtest -scenario hotslot-compare $(LOADTEST_TARGET) $(LOADTEST_FLAGS)

# The benchmarks the README quotes: one hot slot through the database with
# batches of 1 and 50 in the same run, the gateway's refusal and
# waiting-room paths, and a refused click with an HS256 service token beside
# a provider's RS256 and ES256 tokens (and the one signature check each of
# those costs). Timings on a shared machine are noisy: compare ratios.
bench:
	$(GO) test -run '^$$' -bench DecideHotSlot -benchtime 3s -count 3 ./booker/postgres/
	$(GO) test -run '^$$' -bench 'LimiterRefusal|KnownFull|OutlookDeepLine' -benchmem -count 3 ./gateway/ ./gateway/limit/ ./gateway/room/
	$(GO) test -run '^$$' -bench 'RefusedClick' -benchmem -count 5 ./gateway/http/
	$(GO) test -run '^$$' -bench 'Verify' -benchmem -count 3 ./gateway/oidc/

lint:
	$(GO) vet $(MODULES)
	$(GO) run $(STATICCHECK) $(MODULES)

# Go native fuzzing of what arrives from outside: the booking body, bearer
# tokens, commands on the bus, working plans. `make test` runs the seed
# corpora (testdata/fuzz); this target fuzzes each for FUZZTIME. A failing
# input is written to testdata/fuzz and fails `make test` from then on.
# FUZZTIME is a count of executions: with a duration, Go 1.26's fuzzing
# coordinator can fail a target with a bare "context deadline exceeded" when
# the time runs out on a busy machine (golang/go#75804, fixed in Go 1.27).
FUZZTIME ?= 50000x
FUZZ_TARGETS := FuzzBookingBody:./gateway/http FuzzBearerToken:./gateway/http \
	FuzzDecodeCommand:./booker/jetstream FuzzUnpackEnvelope:./booker/jetstream FuzzParsePlan:./booker/schedule

.PHONY: fuzz
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; \
		echo "fuzz $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -parallel 2 $$pkg; \
	done
