package report

import (
	"strconv"
	"time"
)

// CPUReport is the CPU each process spent between the two readings (before
// the first click, after the system caught up), per confirmed booking. CPU
// time does not depend on how the cores are shared, so it is the figure by
// which changes to the path can be compared on a busy machine.
type CPUReport struct {
	WindowSeconds float64 `json:"windowSeconds"`
	Confirmed     int     `json:"confirmedBookings"`
	// Reads are the reads (slot lists, searches) answered in the run; where
	// they are most of the work (the day), each process's CPU is given per
	// read too, the bookings' included.
	Reads             int       `json:"readsAnswered,omitempty"`
	Processes         []CPULine `json:"processes"`
	TotalSeconds      float64   `json:"totalCpuSeconds"`
	TotalUSPerBooking float64   `json:"totalUsPerBooking"`
	// OwnDatabaseUSPerBooking is the total with PostgreSQL counted as the
	// run database's backends only: on a machine where other databases are
	// busy, the figure that is this system's alone.
	OwnDatabaseUSPerBooking float64 `json:"totalOwnDatabaseUsPerBooking,omitempty"`
	// PostgresBackends splits PostgreSQL: the backends serving the run's
	// database, the rest (server processes, other databases' backends).
	PostgresBackends []CPULine `json:"postgresBreakdown,omitempty"`
	// Prometheus is each /metrics endpoint's process_cpu_seconds_total over
	// the same window, a cross-check of the /proc figures.
	Prometheus []CPULine `json:"prometheusCrossCheck,omitempty"`
	Error      string    `json:"error,omitempty"`
}

// CPULine is one process group's CPU over the window.
type CPULine struct {
	Process      string  `json:"process"`
	Found        bool    `json:"found"`
	PIDs         []int   `json:"pids,omitempty"`
	Seconds      float64 `json:"cpuSeconds"`
	Cores        float64 `json:"cores"` // Seconds / window: cores kept busy on average
	USPerBooking float64 `json:"usPerBooking"`
}

// Morning is the opening-all scenario's own report: the opening, the
// bookings the database confirmed second by second, the backlog, and the
// time to a decision over the run and in its first second.
type Morning struct {
	Opening        time.Time     `json:"opening"`
	Doctors        int           `json:"doctors"`
	SlotsPerDoctor int           `json:"slotsPerDoctor"`
	Places         int           `json:"places"`
	Skew           string        `json:"skew"`
	Confirmed      int           `json:"confirmedBookings"`
	Seconds        []MorningLine `json:"seconds"`
	Decisions      []LatencyLine `json:"decisionLatency"`
}

// MorningLine is one second after the opening.
type MorningLine struct {
	BacklogLine
	// Confirmed is the appointments the database created in this second.
	Confirmed int `json:"confirmedInSecond"`
}

// Comparison is the hot slot through the whole path beside the seed's
// one-transaction-per-request design, the same ramp in the same run.
type Comparison struct {
	Whole    CompareLeg `json:"wholePath"`
	Baseline CompareLeg `json:"seedBaseline"`
	// Ratio is the whole path's knee over the baseline's, in confirmed
	// bookings per second.
	Ratio float64 `json:"kneeRatio"`
	// BaselineServerUS estimates the baseline server's own CPU per booking:
	// its process less the load generator's share, at the whole-path leg's
	// CPU per request sent.
	BaselineServerUS float64 `json:"baselineServerUsPerBookingEstimate"`
	Ramp             string  `json:"ramp"`
}

// CompareLeg is one of the two runs.
type CompareLeg struct {
	Target string     `json:"target"`
	Knee   Knee       `json:"knee"`
	CPU    *CPUReport `json:"cpu"`
	Sent   uint64     `json:"requestsSent"`
	Passed bool       `json:"passed"`
	Dir    string     `json:"dir"`
}

// Knee is where confirmed bookings per second stopped rising with the
// offered rate: the system's sustained booking capacity.
type Knee struct {
	Offered   float64 `json:"offeredPerSecond"`
	Confirmed float64 `json:"confirmedPerSecond"`
	Found     bool    `json:"found"`
	Steps     []Step  `json:"steps"`
}

// MetricDelta is one watched series before and after the run.
type MetricDelta struct {
	Source string  `json:"source"`
	Series string  `json:"series"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Delta  float64 `json:"delta"`
}

// BacklogLine is one second of a run as the backlog watch saw it at the
// second's end: clicks sent and finally answered so far, those still
// waiting, and the booker's queue.
type BacklogLine struct {
	Second  int `json:"second"`
	Clicks  int `json:"clicksSoFar"`
	Decided int `json:"decidedSoFar"`
	Backlog int `json:"backlog"`
	// QueuePending is booker_queue_pending; -1 when the booker is not scraped.
	QueuePending float64 `json:"bookerQueuePending"`
}

// BudgetLine is one budget of the run's scenario and the run's figure.
type BudgetLine struct {
	Budget string `json:"budget"`
	// Limit is the bound as people read it: "≤ 50 ms".
	Limit    string  `json:"limit"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	Measured bool    `json:"measured"`
	Met      bool    `json:"met"`
}

// ValueText is the run's figure with its unit, or why there is none.
func (l BudgetLine) ValueText() string {
	if !l.Measured {
		return "not measured"
	}
	if l.Unit == "×" {
		return strconv.FormatFloat(l.Value, 'f', 2, 64) + " " + l.Unit
	}
	return fmtMS(l.Value) + " " + l.Unit
}

// Result is "met", "MISSED" or "not measured".
func (l BudgetLine) Result() string {
	switch {
	case !l.Measured:
		return "not measured"
	case l.Met:
		return "met"
	}
	return "MISSED"
}

// Step is one step of the sustained ramp.
type Step struct {
	Offered   float64 `json:"offeredPerSecond"`
	Confirmed float64 `json:"confirmedPerSecond"`
}
