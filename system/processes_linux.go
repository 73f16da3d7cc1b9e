package system

import (
	"os/exec"
	"syscall"
)

// setChildAttrs puts a child in a process group of its own, so that Ctrl-C
// in the terminal reaches the run alone, which stops the children in order;
// a run that is killed takes its children with it.
func setChildAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
