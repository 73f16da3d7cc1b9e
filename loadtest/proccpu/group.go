package proccpu

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Group names the processes charged together under one label: by pid
// ("1234", "self") or by process name (the kernel's comm, the base name of
// argv[0], or a title such as PostgreSQL's "postgres: walwriter"). Where, if
// set, narrows the matches further.
type Group struct {
	Label string
	Match []string
	Where func(Proc) bool
}

func (g Group) matches(p Proc) bool {
	if g.Where != nil && !g.Where(p) {
		return false
	}
	for _, m := range g.Match {
		if m == "" {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSuffix(m, "+")); err == nil {
			// "PID+" is a process and its children: a PostgreSQL server and
			// its backends, apart from another cluster on the same machine.
			if pid == p.PID || (strings.HasSuffix(m, "+") && pid == p.PPID) {
				return true
			}
			continue
		}
		if (m == "self" && p.PID == os.Getpid()) || nameMatches(m, p) {
			return true
		}
	}
	return false
}

func nameMatches(name string, p Proc) bool {
	if p.Comm == name || (len(name) > 15 && strings.HasPrefix(name, p.Comm) && len(p.Comm) == 15) {
		return true // comm is cut to 15 bytes
	}
	if len(p.Cmdline) == 0 {
		return false
	}
	first := p.Cmdline[0]
	return filepath.Base(first) == name || first == name+":"
}

// GroupCPU is a group's processes at one moment and their CPU time so far.
type GroupCPU struct {
	PIDs []int
	// CPU is the own time of the live processes plus, for each process
	// whose parent is not in the group, the time of the children it has
	// waited for: a child that ends between two samples moves from the first
	// term into the second, so the difference of two samples is the CPU the
	// group spent in between, ended children included.
	CPU time.Duration
}

// Sample is every group's CPU at one moment.
type Sample struct {
	At     time.Time
	Groups map[string]GroupCPU
}

// Take reads /proc once and sums each group's CPU. A process counts in the
// first group that matches it only, so that totals never count it twice.
func Take(groups []Group) (Sample, error) {
	procs, err := List()
	if err != nil {
		return Sample{}, err
	}
	return Sum(procs, groups), nil
}

// Sum is Take over an already read process list.
func Sum(procs []Proc, groups []Group) Sample {
	s := Sample{At: time.Now(), Groups: make(map[string]GroupCPU, len(groups))}
	members := make([][]Proc, len(groups))
	for _, p := range procs {
		for i, g := range groups {
			if g.matches(p) {
				members[i] = append(members[i], p)
				break
			}
		}
	}
	for i, g := range groups {
		s.Groups[g.Label] = sumGroup(members[i])
	}
	return s
}

func sumGroup(procs []Proc) GroupCPU {
	var g GroupCPU
	in := map[int]bool{}
	for _, p := range procs {
		in[p.PID] = true
	}
	for _, p := range procs {
		g.PIDs = append(g.PIDs, p.PID)
		g.CPU += p.Own()
		if !in[p.PPID] {
			g.CPU += p.Reaped()
		}
	}
	slices.Sort(g.PIDs)
	return g
}

// Delta is what a group spent between two samples; a group found in neither
// is reported as not found.
func Delta(before, after Sample, label string) (cpu time.Duration, found bool) {
	b, a := before.Groups[label], after.Groups[label]
	if len(a.PIDs) == 0 && len(b.PIDs) == 0 {
		return 0, false
	}
	return max(a.CPU-b.CPU, 0), true
}

// PostgresDatabase reports whether p is a PostgreSQL backend serving the
// named database. A backend's title is "postgres: [cluster:] user database
// host(port) state".
func PostgresDatabase(db string) func(Proc) bool {
	return func(p Proc) bool {
		f := p.Cmdline
		if len(f) < 3 || f[0] != "postgres:" {
			return false
		}
		f = f[1:]
		if strings.HasSuffix(f[0], ":") { // cluster_name, e.g. "15/main:"
			f = f[1:]
		}
		return len(f) >= 2 && f[1] == db
	}
}
