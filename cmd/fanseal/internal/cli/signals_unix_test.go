//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHandlerBeforeNamedFile checks that a named staging file never
// exists without the signal handler that removes it, although the handler
// is installed beside the command: a child process with one P (so that the
// goroutine installing the handler has not run yet) starts the handler,
// at once creates a named staging file and sends itself SIGTERM. The file
// must be gone and the child must say it was interrupted. Without the
// wait in createTemp, SIGTERM's default action ends the child first and
// leaves the file.
func TestHandlerBeforeNamedFile(t *testing.T) {
	if dir := os.Getenv("FANSEAL_HANDLER_CHILD"); dir != "" {
		if err := os.Chdir(dir); err != nil {
			t.Fatal(err)
		}
		startSignalHandler()
		d, err := openRoot(false)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := createTemp(d); err != nil {
			t.Fatal(err)
		}
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {} // the handler ends the process
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHandlerBeforeNamedFile$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FANSEAL_HANDLER_CHILD="+dir, "GOMAXPROCS=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child exited with success:\n%s", out)
	}
	if !strings.Contains(string(out), "fanseal: error: interrupted") {
		t.Errorf("the child said %q, not that it was interrupted", out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".fanseal-*")); len(left) > 0 {
		t.Errorf("the named staging file %v was left", left)
	}
}
