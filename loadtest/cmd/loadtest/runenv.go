package main

import (
	"bufio"
	"os"
	"strings"
)

// runEnvPath is where a running `make run` says how to reach it (GW, DB,
// BOOKER, tokens), so that a load test started from the repository root
// finds the same gateway and database without flags.
const runEnvPath = ".data/run.env"

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
