// Package proccpu reads processes' CPU time from /proc, so that a load test
// can charge each process of the system under test (and itself) with what
// one booking costs. CPU time does not depend on how busy the machine's cores
// are, which makes it the one figure of a shared, noisy machine that later
// changes can be compared by.
package proccpu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TicksPerSecond is USER_HZ, the unit of the times in /proc/<pid>/stat. The
// kernel reports them in USER_HZ whatever its own tick rate, and USER_HZ is
// 100 on every architecture Linux runs Go on (sysconf(_SC_CLK_TCK) says the same).
const TicksPerSecond = 100

// Stat is the part of /proc/<pid>/stat that CPU accounting needs.
type Stat struct {
	PID, PPID int
	Comm      string
	// Utime and Stime are the process's own user and system time (all its
	// threads); Cutime and Cstime those of its children it has waited for.
	Utime, Stime, Cutime, Cstime uint64
}

// Own is the process's own CPU time.
func (s Stat) Own() time.Duration { return ticks(s.Utime + s.Stime) }

// Reaped is the CPU time of the children the process has waited for.
func (s Stat) Reaped() time.Duration { return ticks(s.Cutime + s.Cstime) }

func ticks(n uint64) time.Duration { return time.Duration(n) * time.Second / TicksPerSecond }

// ParseStat reads one /proc/<pid>/stat line. The command name stands in
// parentheses and may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
func ParseStat(line string) (Stat, error) {
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return Stat{}, fmt.Errorf("proccpu: malformed stat %q", line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line[:open]))
	if err != nil {
		return Stat{}, fmt.Errorf("proccpu: stat pid: %w", err)
	}
	// After ')': state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	f := strings.Fields(line[end+1:])
	if len(f) < 15 {
		return Stat{}, fmt.Errorf("proccpu: stat of %d has %d fields", pid, len(f)+2)
	}
	s := Stat{PID: pid, Comm: line[open+1 : end]}
	nums := []*uint64{&s.Utime, &s.Stime, &s.Cutime, &s.Cstime}
	for i, p := range nums {
		v, err := strconv.ParseInt(f[11+i], 10, 64)
		if err != nil || v < 0 {
			return Stat{}, fmt.Errorf("proccpu: stat of %d: field %d: %q", pid, 14+i, f[11+i])
		}
		*p = uint64(v)
	}
	if s.PPID, err = strconv.Atoi(f[1]); err != nil {
		return Stat{}, fmt.Errorf("proccpu: stat of %d: ppid: %w", pid, err)
	}
	return s, nil
}

// Read reads the stat of one process; pid 0 is the calling process.
func Read(pid int) (Stat, error) {
	name := "self"
	if pid != 0 {
		name = strconv.Itoa(pid)
	}
	b, err := os.ReadFile(filepath.Join("/proc", name, "stat"))
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(string(b))
}

// Proc is a process found in /proc: its stat and its command line.
type Proc struct {
	Stat
	Cmdline []string
}

// List reads every process visible in /proc. Processes that end while it
// reads are left out.
func List() ([]Proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("proccpu: %w (CPU per process needs Linux /proc)", err)
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := Read(pid)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Proc{Stat: st, Cmdline: cmdline(pid)})
	}
	return out, nil
}

func cmdline(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return nil
	}
	s := strings.TrimRight(string(b), "\x00")
	if !strings.Contains(s, "\x00") {
		return strings.Fields(s) // a process that rewrote its title (PostgreSQL's backends)
	}
	return strings.Split(s, "\x00")
}
