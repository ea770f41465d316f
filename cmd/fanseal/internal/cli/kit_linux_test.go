package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"testing"
)

// cliPassphrase runs the built command with args on a new pseudo-terminal,
// its controlling terminal, and types passphrase when decrypt asks it
// (a prompt ending in "passphrase:"); a command that ends without asking
// is not answered. It returns the exit status, standard output and
// standard error, as cli does.
func cliPassphrase(t *testing.T, passphrase string, args ...string) (int, string, string) {
	t.Helper()
	cmd := commandFor(t, binary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err, _ := onControllingTerminal(t, cmd, passphrase)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}
