//go:build !unix

package system

import "os/exec"

func setChildAttrs(*exec.Cmd) {}
