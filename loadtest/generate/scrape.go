package generate

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"termin/loadtest"
)

// watchedFamilies are the metric families whose change over the run the
// report shows: what the system itself counted, to set beside what the
// clients saw.
var watchedFamilies = []string{
	"gateway_requests_total", "gateway_admission_total", "gateway_booking_duration_seconds_count",
	"booker_bookings_total", "booker_redeliveries_total", "booker_db_retries_total",
	"booker_messages_terminated_total", "booker_queue_pending",
	"process_cpu_seconds_total", // the system's own CPU, to divide by the bookings
}

// Sample is one scrape: each series' value by its full name with labels,
// and each family's sum.
type Sample map[string]float64

// Scrape reads a Prometheus text exposition; an unreachable endpoint gives
// an empty Sample and an error the report names.
func Scrape(ctx context.Context, url string) (Sample, error) {
	if url == "" {
		return Sample{}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Sample{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Sample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Sample{}, fmt.Errorf("%s: %s", url, resp.Status)
	}
	s := Sample{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		s.parse(sc.Text())
	}
	return s, sc.Err()
}

// parse reads one exposition line: `name{labels} value [timestamp]`.
func (s Sample) parse(line string) {
	if line == "" || line[0] == '#' {
		return
	}
	series, rest := splitSeries(line)
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return
	}
	s[series] = v
	if i := strings.IndexByte(series, '{'); i > 0 {
		s[series[:i]] += v
	}
}

// splitSeries cuts a line after its series name and labels, minding quoted
// label values that may hold braces or spaces.
func splitSeries(line string) (series, rest string) {
	quoted, escaped := false, false
	for i, r := range line {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case r == '"':
			quoted = !quoted
		case !quoted && (r == ' ' || r == '}'):
			if r == '}' {
				return line[:i+1], line[i+1:]
			}
			return line[:i], line[i:]
		}
	}
	return line, ""
}

// Deltas lists the watched series that changed, and each watched family's total.
func Deltas(source string, before, after Sample) []loadtest.MetricDelta {
	var out []loadtest.MetricDelta
	for _, name := range sortedKeys(after) {
		if !watched(name) || (after[name] == before[name] && strings.Contains(name, "{")) {
			continue
		}
		out = append(out, loadtest.MetricDelta{Source: source, Series: name, Before: before[name],
			After: after[name], Delta: after[name] - before[name]})
	}
	return out
}

func watched(series string) bool {
	for _, f := range watchedFamilies {
		if series == f || strings.HasPrefix(series, f+"{") {
			return true
		}
	}
	return false
}
