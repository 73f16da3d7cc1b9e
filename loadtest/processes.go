package loadtest

import "strconv"

// ProcessGroup names processes whose CPU the report charges together under
// Label; Match holds process names (comm, argv[0]'s base name, or a process
// title such as PostgreSQL's "postgres: walwriter") or pids.
type ProcessGroup struct {
	Label string
	Match []string
}

// Labels of the CPU table.
const (
	LabelGenerator = "load generator"
	LabelSystem    = "make run: gateway+booker+embedded NATS, one process"
	LabelPostgres  = "PostgreSQL, every process of that name"
	// LabelDatabaseServer is the PostgreSQL server that serves the run's
	// database: its postmaster and every child of it, of any database.
	LabelDatabaseServer = "PostgreSQL server of the run's database"
)

// DatabaseServer, as a match, stands for the PostgreSQL server that serves
// the run's database: the parent of the backend the load test is connected
// to, and that parent's children. It is found only when that server runs on
// this machine (the backend's process title names the connection's port);
// another cluster on the machine is left out.
const DatabaseServer = "database-server"

// DefaultProcesses finds the stack by process name: bin/gateway, bin/booker,
// nats-server and the PostgreSQL server of the run's database (it must run
// on this machine).
func DefaultProcesses() []ProcessGroup {
	return []ProcessGroup{
		{Label: "gateway", Match: []string{"gateway"}},
		{Label: "booker", Match: []string{"booker"}},
		{Label: "nats-server", Match: []string{"nats-server"}},
		{Label: LabelDatabaseServer, Match: []string{DatabaseServer}},
	}
}

// RunProcesses are `make run`'s processes: its one process, the pid in its
// .data/run.pid, which holds the gateway, the booker and the embedded
// nats-server, and the PostgreSQL server of its database.
func RunProcesses(pid int) []ProcessGroup {
	return []ProcessGroup{
		{Label: LabelSystem, Match: []string{strconv.Itoa(pid)}},
		{Label: LabelDatabaseServer, Match: []string{DatabaseServer}},
	}
}

// LabelBaselineProcess is the CPU table's name for the load test's own
// process while the seed baseline serves inside it.
const LabelBaselineProcess = LabelGenerator + " + seed baseline server"
