package clitest

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A Program runs a program's command line in-process, as its main would.
type Program struct {
	// Name names the program in messages: "bench".
	Name string
	// Exec runs the program with args and returns its exit status
	// (cli.Tool's Exec).
	Exec func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Run runs p with args and stdin, and returns its exit status, standard
// output and standard error.
func (p Program) Run(t testing.TB, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	status := p.Exec(args, strings.NewReader(stdin), &out, &errOut)
	return status, out.String(), errOut.String()
}

// MustRun runs p and fails the test unless it succeeds; it returns the
// standard output.
func (p Program) MustRun(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	status, out, errOut := p.Run(t, stdin, args...)
	if status != 0 {
		t.Fatalf("%s %v: status %d: %s", p.Name, args, status, errOut)
	}
	return out
}

// MustFail runs p and fails the test unless it exits with status 1 and an
// error line, "fanseal: error: ...", that says want.
func (p Program) MustFail(t testing.TB, stdin, want string, args ...string) {
	t.Helper()
	status, _, errOut := p.Run(t, stdin, args...)
	if status != 1 || !strings.HasPrefix(errOut, "fanseal: error: ") || !strings.Contains(errOut, want) {
		t.Fatalf("%s %v: status %d, stderr %q; want 1 and fanseal: error: ...%s...", p.Name, args, status, errOut, want)
	}
}
