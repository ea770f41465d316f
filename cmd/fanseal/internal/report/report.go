// Package report holds what the reports of fanseal's measuring programs
// (go run ./cmd/fanseal/bench, go run ./cmd/fanseal/sim) are both made of:
// the description of the machine a figure came from and the progress bar
// drawn on a terminal while they measure; and, for the fanseal command too,
// whether a writer is a terminal. Their plots are package chart's.
package report

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"golang.org/x/term"
)

// Machine describes where a run happened.
type Machine struct {
	CPU        string    `json:"cpu"`
	Cores      int       `json:"cores"`
	GOMAXPROCS int       `json:"gomaxprocs"`
	Go         string    `json:"go"`
	OS         string    `json:"os"`
	Arch       string    `json:"arch"`
	Date       time.Time `json:"date"`
}

// ThisMachine describes the machine, dated t.
func ThisMachine(t time.Time) Machine {
	return Machine{CPU: CPUModel(), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Date: t.UTC()}
}

// CPUModel returns the CPU's model name, or the architecture where the
// system does not say.
func CPUModel() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

// IsTerminal reports whether w is a terminal. Being a character device is
// not enough: /dev/null is one too.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Width returns the width in columns of the terminal w, or 0 where w is
// no terminal or does not say.
func Width(w any) int {
	if !IsTerminal(w) {
		return 0
	}
	cols, _, err := term.GetSize(int(w.(*os.File).Fd()))
	if err != nil {
		return 0
	}
	return cols
}

// Time formats a time in nanoseconds with three significant figures or so:
// 812 ns, 31.4 µs, 1.27 ms, 18.8 s.
func Time(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}
