package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cliPassphrase runs the built command with args on a new pseudo-terminal,
// its controlling terminal, and types passphrase when decrypt asks it
// (a prompt ending in "passphrase:"); a command that ends without asking
// is not answered. It returns the exit status, standard output and
// standard error, as cli does.
func cliPassphrase(t *testing.T, passphrase string, args ...string) (int, string, string) {
	t.Helper()
	master, tty := openPTYPair(t)
	cmd := exec.Command(binary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var mu sync.Mutex
	var screen strings.Builder
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	asked := false
	deadline := time.After(60 * time.Second)
	for {
		select {
		case err := <-done:
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("fanseal %v did not end; stderr %q", args, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		mu.Lock()
		prompt := strings.Contains(screen.String(), "passphrase:")
		mu.Unlock()
		if prompt && !asked {
			asked = true
			master.Write([]byte(passphrase + "\r"))
		}
	}
}
