package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// openPTY returns the terminal end of a new pseudo-terminal.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock, n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestTerminalDetection: a terminal is refused a binary envelope, while
// /dev/null, a character device too, is not.
func TestTerminalDetection(t *testing.T) {
	_, _, pubs := setup(t, "x25519", 1)
	tty := openPTY(t)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if !report.IsTerminal(tty) || report.IsTerminal(null) {
		t.Fatalf("isTerminal: pty %v, /dev/null %v", report.IsTerminal(tty), report.IsTerminal(null))
	}
	var stderr strings.Builder
	if status := run([]string{"encrypt", "-r", pubs[0]}, strings.NewReader("x"), tty, &stderr); status != 1 || !strings.Contains(stderr.String(), "terminal") {
		t.Fatalf("encrypt to a terminal: status %d, %q", status, stderr.String())
	}
	stderr.Reset()
	if status := run([]string{"encrypt", "-r", pubs[0]}, strings.NewReader("x"), null, &stderr); status != 0 {
		t.Fatalf("encrypt to /dev/null: status %d, %q", status, stderr.String())
	}
}
