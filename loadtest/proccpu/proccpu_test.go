package proccpu_test

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"termin/loadtest/proccpu"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, line string
		want       proccpu.Stat
		bad        bool
	}{
		{name: "plain", line: "2212 (postgres) S 1 2212 2212 0 -1 4194560 9000 1 0 0 1234 567 89 10 20 0 1 0 100 0",
			want: proccpu.Stat{PID: 2212, PPID: 1, Comm: "postgres", Utime: 1234, Stime: 567, Cutime: 89, Cstime: 10}},
		{name: "comm with spaces and parentheses", line: "77 (a b) (c)) R 5 77 77 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0",
			want: proccpu.Stat{PID: 77, PPID: 5, Comm: "a b) (c)", Utime: 3, Stime: 4}},
		{name: "cut short", line: "77 (x) R 5 77", bad: true},
		{name: "no parentheses", line: "77 x R 5", bad: true},
		{name: "negative time", line: "77 (x) R 5 77 77 0 -1 0 0 0 0 0 -3 4 0 0 20 0 1 0 1 0", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := proccpu.ParseStat(tt.line)
			if tt.bad {
				if err == nil {
					t.Fatalf("ParseStat accepted %q: %+v", tt.line, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseStat = %+v, %v; want %+v", got, err, tt.want)
			}
			if own := got.Own(); own != time.Duration(tt.want.Utime+tt.want.Stime)*10*time.Millisecond {
				t.Errorf("Own = %v", own)
			}
		})
	}
}

// TestReadSelfCountsWork burns 100 ms of CPU, as the kernel's rusage counts
// it, and expects /proc/self/stat to have counted as much, within its
// 10 ms ticks. Counting CPU rather than wall time keeps it right on a busy machine.
func TestReadSelfCountsWork(t *testing.T) {
	before, err := proccpu.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	if before.PID != os.Getpid() {
		t.Fatalf("Read(0) is pid %d, want %d", before.PID, os.Getpid())
	}
	r0, deadline, x := rusage(t), time.Now().Add(time.Minute), 0
	for rusage(t)-r0 < 100*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatal("could not burn 100 ms of CPU within a minute")
		}
		for i := range 100_000 {
			x += i ^ x
		}
	}
	spentRusage := rusage(t) - r0
	after, err := proccpu.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	if spent := after.Own() - before.Own(); spent < spentRusage-30*time.Millisecond {
		t.Errorf("rusage counted %v of CPU, /proc %v (x=%d)", spentRusage, spent, x)
	}
}

func rusage(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestTakeFindsProcessesByNameAndPID(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep (coreutils): %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	s, err := proccpu.Take([]proccpu.Group{
		{Label: "me", Match: []string{"self"}},
		{Label: "by pid", Match: []string{strconv.Itoa(pid)}},
		{Label: "by name", Match: []string{"sleep"}},
		{Label: "nobody", Match: []string{"no-such-process-name"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Groups["me"].PIDs; !slices.Equal(got, []int{os.Getpid()}) {
		t.Errorf("self: pids %v", got)
	}
	if got := s.Groups["by pid"].PIDs; !slices.Equal(got, []int{pid}) {
		t.Errorf("by pid: pids %v, want [%d]", got, pid)
	}
	if slices.Contains(s.Groups["by name"].PIDs, pid) {
		t.Errorf("pid %d counted twice: in %q and in %q", pid, "by pid", "by name")
	}
	if _, found := proccpu.Delta(s, s, "nobody"); found {
		t.Error("a group without processes reported as found")
	}
}

// TestSumKeepsEndedChildren: a child that ends between two samples is
// counted through its parent's reaped time, neither lost nor counted twice.
func TestSumKeepsEndedChildren(t *testing.T) {
	group := []proccpu.Group{{Label: "pg", Match: []string{"postgres"}}}
	proc := func(pid, ppid int, own, reaped uint64) proccpu.Proc {
		return proccpu.Proc{Stat: proccpu.Stat{PID: pid, PPID: ppid, Comm: "postgres", Utime: own, Cutime: reaped}}
	}
	before := proccpu.Sum([]proccpu.Proc{proc(10, 1, 100, 0), proc(11, 10, 40, 0), proc(12, 10, 5, 0)}, group)
	// 11 ran 20 more ticks and ended (reaped by 10); 12 ran 3 more; 13 started and ran 7.
	after := proccpu.Sum([]proccpu.Proc{proc(10, 1, 101, 60), proc(12, 10, 8, 0), proc(13, 10, 7, 0)}, group)
	got, found := proccpu.Delta(before, after, "pg")
	if want := 31 * 10 * time.Millisecond; !found || got != want {
		t.Errorf("Delta = %v (found %v), want %v", got, found, want)
	}
}

// TestSumPIDPlusTakesChildren: "PID+" is one server and its children, not
// another server's processes of the same name.
func TestSumPIDPlusTakesChildren(t *testing.T) {
	group := []proccpu.Group{{Label: "pg", Match: []string{"10+"}}}
	proc := func(pid, ppid int, own uint64) proccpu.Proc {
		return proccpu.Proc{Stat: proccpu.Stat{PID: pid, PPID: ppid, Comm: "postgres", Utime: own}}
	}
	s := proccpu.Sum([]proccpu.Proc{proc(10, 1, 1), proc(11, 10, 1), proc(20, 1, 1), proc(21, 20, 1)}, group)
	if got := s.Groups["pg"].PIDs; !slices.Equal(got, []int{10, 11}) {
		t.Errorf("pids %v, want [10 11]", got)
	}
}

func TestPostgresDatabase(t *testing.T) {
	of := proccpu.PostgresDatabase("lt")
	for _, tt := range []struct {
		cmdline []string
		want    bool
	}{
		{[]string{"postgres:", "15/main:", "postgres", "lt", "127.0.0.1(4242)", "idle"}, true},
		{[]string{"postgres:", "postgres", "lt", "[local]", "idle"}, true},
		{[]string{"postgres:", "15/main:", "postgres", "other", "127.0.0.1(4242)", "idle"}, false},
		{[]string{"postgres:", "15/main:", "walwriter"}, false},
		{[]string{"/usr/lib/postgresql/15/bin/postgres", "-D", "lt"}, false},
	} {
		if got := of(proccpu.Proc{Cmdline: tt.cmdline}); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.cmdline, got, tt.want)
		}
	}
}
