// Package cpumeter charges the CPU that each process of a run spent to the
// bookings the database confirmed: read from /proc before the first click
// and again once the system has caught up, so that the figure does not
// depend on how the shared cores were divided.
package cpumeter

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"termin/loadtest"
	"termin/loadtest/generate"
	"termin/loadtest/proccpu"
)

// Meter reads the groups' CPU before and after the load.
type Meter struct {
	groups, dbGroups []proccpu.Group
	before, dbBefore proccpu.Sample
	after, dbAfter   proccpu.Sample
	err              error
}

func New(o loadtest.Options, pool *pgxpool.Pool, generator string) *Meter {
	m := &Meter{groups: []proccpu.Group{{Label: generator, Match: []string{"self"}}}}
	backends := []string{"postgres"}
	server, found := "", false
	for _, g := range o.Processes {
		match := g.Match
		if slices.Contains(match, loadtest.DatabaseServer) {
			if !found {
				found = true
				if pid, err := DatabaseServerPID(context.Background(), pool); err == nil {
					server = strconv.Itoa(pid) + "+"
					backends = []string{server}
				}
			}
			match = slices.DeleteFunc(slices.Clone(match), func(s string) bool { return s == loadtest.DatabaseServer })
			if server != "" {
				match = append(match, server)
			}
		}
		m.groups = append(m.groups, proccpu.Group{Label: g.Label, Match: match})
	}
	db := pool.Config().ConnConfig.Database
	m.dbGroups = []proccpu.Group{{Label: "backends of database " + db, Match: backends,
		Where: proccpu.PostgresDatabase(db)}}
	return m
}

// Start takes the first reading.
func (m *Meter) Start() { m.before, m.dbBefore = m.read() }

// Stop takes the second reading.
func (m *Meter) Stop() { m.after, m.dbAfter = m.read() }

func (m *Meter) read() (groups, db proccpu.Sample) {
	procs, err := proccpu.List()
	if err != nil {
		m.err = err
		return groups, db
	}
	return proccpu.Sum(procs, m.groups), proccpu.Sum(procs, m.dbGroups)
}

// Report charges the window between the readings to the confirmed bookings.
func (m *Meter) Report(confirmed int) *loadtest.CPUReport {
	r := &loadtest.CPUReport{Confirmed: confirmed}
	if m.err != nil {
		r.Error = m.err.Error()
		return r
	}
	after, dbAfter := m.after, m.dbAfter
	window := after.At.Sub(m.before.At)
	r.WindowSeconds = window.Seconds()
	for _, g := range m.groups {
		l := measureLine(r, g.Label, m.before, after, window)
		r.Processes = append(r.Processes, l)
		r.TotalSeconds += l.Seconds
	}
	r.TotalUSPerBooking = PerBooking(r.TotalSeconds, confirmed)
	if pg := postgresLine(r); pg != nil && pg.Found {
		in := measureLine(r, m.dbGroups[0].Label, m.dbBefore, dbAfter, window)
		rest := loadtest.CPULine{Process: "other PostgreSQL processes (server, other databases)", Found: true,
			Seconds: max(pg.Seconds-in.Seconds, 0)}
		rest.Cores, rest.USPerBooking = rest.Seconds/window.Seconds(), PerBooking(rest.Seconds, confirmed)
		r.PostgresBackends = []loadtest.CPULine{in, rest}
		r.OwnDatabaseUSPerBooking = PerBooking(r.TotalSeconds-rest.Seconds, confirmed)
	}
	return r
}

func measureLine(r *loadtest.CPUReport, label string, before, after proccpu.Sample, window time.Duration) loadtest.CPULine {
	cpu, found := proccpu.Delta(before, after, label)
	l := loadtest.CPULine{Process: label, Found: found, PIDs: after.Groups[label].PIDs, Seconds: cpu.Seconds()}
	if window > 0 {
		l.Cores = l.Seconds / window.Seconds()
	}
	l.USPerBooking = PerBooking(l.Seconds, r.Confirmed)
	return l
}

// postgres is the line of the PostgreSQL processes, by server or by name.
func postgresLine(r *loadtest.CPUReport) *loadtest.CPULine {
	if l := FindLine(r, loadtest.LabelDatabaseServer); l != nil {
		return l
	}
	return FindLine(r, loadtest.LabelPostgres)
}

// FindLine is the report's line of the process group label, or nil.
func FindLine(r *loadtest.CPUReport, label string) *loadtest.CPULine {
	for i := range r.Processes {
		if r.Processes[i].Process == label {
			return &r.Processes[i]
		}
	}
	return nil
}

// CrossCheck adds each endpoint's process_cpu_seconds_total over the window.
func CrossCheck(r *loadtest.CPUReport, before, after map[string]generate.Sample) {
	for _, src := range []string{"gateway", "booker"} {
		b, okB := before[src]["process_cpu_seconds_total"]
		a, okA := after[src]["process_cpu_seconds_total"]
		if !okB || !okA {
			continue
		}
		l := loadtest.CPULine{Process: src + " /metrics process_cpu_seconds_total", Found: true, Seconds: a - b}
		if r.WindowSeconds > 0 {
			l.Cores = l.Seconds / r.WindowSeconds
		}
		l.USPerBooking = PerBooking(l.Seconds, r.Confirmed)
		r.Prometheus = append(r.Prometheus, l)
	}
}

// PerBooking is seconds of CPU per booking in microseconds, 0 without a
// booking.
func PerBooking(seconds float64, bookings int) float64 {
	if bookings == 0 {
		return 0
	}
	return seconds * 1e6 / float64(bookings)
}

// ConfirmedBookings counts the appointments of the run's doctors created
// since the given time: the bookings the database confirmed during the run.
func ConfirmedBookings(ctx context.Context, pool *pgxpool.Pool, id loadtest.IDs, since time.Time) (int, error) {
	lo, hi := id.Doctors()
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM appointment a JOIN time_slot s ON s.id = a.slot_id
        WHERE s.doctor_id BETWEEN $1 AND $2 AND a.created_at >= $3`, lo, hi, since).Scan(&n)
	return n, err
}

// DatabaseServerPID finds the pid of the PostgreSQL server behind pool: the
// parent of one of its backends, once that backend's process title names
// this connection's own client port (or a local socket) and database, so
// that a server in a container, whose pids are not this machine's, is never
// taken for another process.
func DatabaseServerPID(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	var backend int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return 0, err
	}
	client := "[local]"
	if addr, ok := conn.Conn().PgConn().Conn().LocalAddr().(*net.TCPAddr); ok {
		client = fmt.Sprintf("(%d)", addr.Port)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", backend))
	if err != nil {
		return 0, fmt.Errorf("the database's backend %d is not a process of this machine: %w", backend, err)
	}
	title := strings.TrimRight(string(raw), "\x00")
	if !strings.Contains(title, client) || !strings.Contains(title, " "+conn.Conn().Config().Database+" ") {
		return 0, fmt.Errorf("process %d (%q) is not this connection's backend: the server runs elsewhere", backend, title)
	}
	st, err := proccpu.Read(backend)
	if err != nil {
		return 0, err
	}
	return st.PPID, nil
}
