package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// runEnvPath is where a running `make run` says how to reach it (GW, DB,
// BOOKER, tokens), so that a load test started from the repository root
// finds the same gateway and database without flags.
const runEnvPath = ".data/run.env"

// runPIDPath holds the pid of that `make run`: one process with the gateway,
// the booker and the embedded nats-server.
const runPIDPath = ".data/run.pid"

// defaultDatabaseURL is make run's database on a local server: the load test
// never writes into a server's postgres database.
const defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/termin?sslmode=disable"

// readRunEnv reads the NAME='value' lines of a run.env; a missing file is an
// empty map (no make run is running here).
func readRunEnv(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		name, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		out[name] = unquote(value)
	}
	return out
}

// unquote undoes the shell quoting run.env is written with: single quotes
// around the value, and a quote inside written as quote, backslash, quote, quote.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return strings.ReplaceAll(v[1:len(v)-1], `'\''`, "'")
	}
	return v
}

// or is v, or def when v is empty.
func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// runPID is the pid in path when a make run published its run.env and that
// process is alive, else 0.
func runPID(path string, published bool) int {
	if !published {
		return 0
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return 0
	}
	if p, err := os.FindProcess(pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
		return 0 // a run that ended without removing its files
	}
	return pid
}
