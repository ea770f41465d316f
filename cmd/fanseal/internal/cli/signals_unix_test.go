//go:build unix

package cli

import (
	"errors"
	"io"
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
	handlerChild(t, "named", func() {
		d, err := openRoot(false)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := createTemp(d); err != nil {
			t.Fatal(err)
		}
	})
	dir := runHandlerChild(t, "named", nil)
	if left, _ := filepath.Glob(filepath.Join(dir, ".fanseal-*")); len(left) > 0 {
		t.Errorf("the named staging file %v was left", left)
	}
}

// TestHandlerBeforeCopyThroughLink is TestHandlerBeforeNamedFile for an
// output written through a link into an existing file: the copy into the
// file holds the temporaries lock so that a signal ends the process only
// once the file is whole, which needs the handler in place before the
// copy starts. The child sends itself SIGTERM as the copy starts: the
// handler must wait for the copy, so that the file is whole, and then say
// so. Without the wait in commitThrough the handler is not installed yet,
// and the signal's default action ends the child in the middle of the
// commit, silently.
func TestHandlerBeforeCopyThroughLink(t *testing.T) {
	handlerChild(t, "link", func() {
		copyingThrough = func() { syscall.Kill(os.Getpid(), syscall.SIGTERM) }
		o, err := createOutput("link", io.Discard, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Write([]byte("new contents")); err != nil {
			t.Fatal(err)
		}
		if err := o.Commit(); err != nil {
			t.Fatal(err)
		}
	})
	dir := runHandlerChild(t, "link", func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "target"), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("target", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
	})
	if b, _ := os.ReadFile(filepath.Join(dir, "target")); string(b) != "new contents" {
		t.Errorf("the target holds %q", b)
	}
}

// TestHandlerBeforeFirstWrite: once an output that will replace a file
// has something in it, an interrupting signal must find the handler
// (which removes what is pending and says so), even for an unnamed
// staging file, whose commit (the hidden name it takes before the rename)
// would otherwise be the first step that waits: the child writes to such
// an output and sends itself SIGTERM. The old file stays as it was.
func TestHandlerBeforeFirstWrite(t *testing.T) {
	handlerChild(t, "write", func() {
		o, err := createOutput("out", io.Discard, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Write([]byte("pending")); err != nil {
			t.Fatal(err)
		}
	})
	dir := runHandlerChild(t, "write", func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, "out"), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if b, _ := os.ReadFile(filepath.Join(dir, "out")); string(b) != "old" {
		t.Errorf("the replaced file holds %q", b)
	}
}

// TestNoHandlerForInPlaceOutput: an output written in place (standard
// output here) has nothing pending, so it never installs the handler,
// whose start costs a short command 5 % of its time: the child writes to
// such an output and sends itself SIGTERM, which ends it by its default
// action, without the handler's message.
func TestNoHandlerForInPlaceOutput(t *testing.T) {
	handlerChild(t, "in-place", func() {
		o, err := createOutput("-", io.Discard, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Write([]byte("written")); err != nil {
			t.Fatal(err)
		}
		if err := o.Commit(); err != nil {
			t.Fatal(err)
		}
	})
	runDefaultActionChild(t, "in-place")
}

// TestNoHandlerForNewFile: a new output file staged unnamed (O_TMPFILE)
// has no name until Commit links it in, complete, in one step, so it
// needs no handler either: the child writes to such an output, commits a
// second one, and sends itself SIGTERM, which ends it by its default
// action. The first output vanished with the child; the second is there,
// whole.
func TestNoHandlerForNewFile(t *testing.T) {
	handlerChild(t, "new-file", func() {
		o, err := createOutput("out", io.Discard, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if o.tmp != "" {
			t.Skip("no unnamed temporary files here")
		}
		done, err := createOutput("done", io.Discard, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []*Output{o, done} {
			if _, err := o.Write([]byte("pending")); err != nil {
				t.Fatal(err)
			}
		}
		if err := done.Commit(); err != nil {
			t.Fatal(err)
		}
	})
	dir := runDefaultActionChild(t, "new-file")
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("the interrupted output appeared")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "done")); string(b) != "pending" {
		t.Errorf("the committed output holds %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".fanseal-*")); len(left) > 0 {
		t.Errorf("%v was left", left)
	}
}

// runDefaultActionChild runs the calling test again in a child for case
// name, as runHandlerChild does, and checks that SIGTERM ended it by its
// default action, with no handler's message. It returns the child's
// directory.
func runDefaultActionChild(t *testing.T, name string) string {
	t.Helper()
	requireExec(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FANSEAL_HANDLER_CHILD="+dir, "FANSEAL_HANDLER_CASE="+name, "GOMAXPROCS=1")
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "SKIP") {
		t.Skipf("the child skipped: %s", out)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM || strings.Contains(string(out), "interrupted") {
		t.Fatalf("the child ended with %v, saying %q; want SIGTERM's default action", err, out)
	}
	return dir
}

// handlerChild, in the child process of runHandlerChild for case name,
// starts the handler, runs work at once, and sends itself SIGTERM, which
// the handler must turn into its message and exit status 1.
func handlerChild(t *testing.T, name string, work func()) {
	dir := os.Getenv("FANSEAL_HANDLER_CHILD")
	if dir == "" || os.Getenv("FANSEAL_HANDLER_CASE") != name {
		return
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	wantSignalHandler() // as Main does
	work()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {} // the handler, or the signal's default action, ends the process
}

// runHandlerChild runs the calling test again in a child with one P (so
// that the goroutine installing the handler has not run yet), in a
// directory set up by setup, checks that the child said it was
// interrupted and failed, and returns the directory.
func runHandlerChild(t *testing.T, name string, setup func(dir string)) string {
	t.Helper()
	requireExec(t)
	dir := t.TempDir()
	if setup != nil {
		setup(dir)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FANSEAL_HANDLER_CHILD="+dir, "FANSEAL_HANDLER_CASE="+name, "GOMAXPROCS=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child exited with success:\n%s", out)
	}
	if !strings.Contains(string(out), "fanseal: error: interrupted") {
		t.Errorf("the child said %q, not that it was interrupted", out)
	}
	return dir
}
