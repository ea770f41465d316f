package cli

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stalledDecrypt starts bin decrypting half of a ~1 MB envelope (16
// chunks) into dir/out, its input then open and silent, and returns once
// the output holds some plaintext: in an unnamed file the process holds
// open, or in a named temporary file, whichever the build uses.
func stalledDecrypt(t *testing.T, bin string) (cmd *exec.Cmd, dir string, stderr *strings.Builder) {
	t.Helper()
	dir, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, strings.Repeat("plaintext prefix ", 60000), "encrypt", "-r", pubs[0])
	cmd = commandFor(t, bin, "decrypt", "-i", keys[0], "-o", filepath.Join(dir, "out"))
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	startHalfFed(t, cmd, env)
	awaitPending(t, cmd.Process.Pid, dir)
	return cmd, dir, stderr
}

// startHalfFed starts cmd with the first half of env on its standard
// input, which stays open, and returns a function that writes the rest
// and closes it. The process is killed when the test ends, if it has not.
func startHalfFed(t *testing.T, cmd *exec.Cmd, env string) (rest func()) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	if _, err := io.WriteString(stdin, env[:len(env)/2]); err != nil {
		t.Fatal(err)
	}
	return func() {
		io.WriteString(stdin, env[len(env)/2:])
		stdin.Close()
	}
}

// awaitPending waits until process pid holds some plaintext for dir
// (plaintextPending), and fails the test if none appears in 20 seconds.
func awaitPending(t *testing.T, pid int, dir string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if plaintextPending(pid, dir) {
			return
		}
	}
	t.Fatal("no output file with plaintext appeared")
}

// plaintextPending reports whether process pid holds an unnamed file in
// dir with something in it, or dir holds a named temporary output.
func plaintextPending(pid int, dir string) bool {
	fds, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	for _, fd := range fds {
		p := "/proc/" + strconv.Itoa(pid) + "/fd/" + fd.Name()
		if l, err := os.Readlink(p); err == nil && strings.HasPrefix(l, dir+"/") && strings.HasSuffix(l, "(deleted)") {
			if st, err := os.Stat(p); err == nil && st.Size() > 0 {
				return true
			}
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, ".fanseal-*.tmp"))
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Size() > 0 {
			return true
		}
	}
	return false
}

// keyFilesOnly checks that dir holds only the key file setup wrote.
func keyFilesOnly(t *testing.T, dir, after string) {
	t.Helper()
	if got := entries(t, dir); !slices.Equal(got, []string{"x25519a.key"}) {
		t.Fatalf("after %s the directory holds %v", after, got)
	}
}

// TestSignalLeavesNothing interrupts a decrypt whose input stalls after
// some authenticated chunks were written to the pending output, with each
// signal that ends a process by default, in both ways of holding the
// output: nothing must be left and the command must fail. A named staging
// file is removed by the handler, which says so; an unnamed one, a new
// file until its commit links it in, vanishes with the process, which the
// signal ends by its default action (SIGQUIT's, in a Go program, is the
// runtime's: a dump of the goroutines and exit status 2), as it ends age.
func TestSignalLeavesNothing(t *testing.T) {
	for _, b := range []struct {
		name  string
		build *build
	}{{"unnamed", built}, {"named", builtNamed}} {
		bin := b.build.get(t)
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
			t.Run(b.name+"/"+sig.String(), func(t *testing.T) {
				if signal.Ignored(sig) {
					// The command inherits it ignored (nohup) and keeps it
					// so, as it must: the signal would not end it.
					t.Skipf("%v is ignored in this process, and so in the command", sig)
				}
				cmd, dir, stderr := stalledDecrypt(t, bin)
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if err := cmd.Wait(); err == nil || cmd.ProcessState.Success() {
					t.Fatalf("decrypt interrupted by %v exited with success", sig)
				}
				keyFilesOnly(t, dir, sig.String())
				if b.name == "unnamed" {
					ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
					if sig != syscall.SIGQUIT && (!ws.Signaled() || ws.Signal() != sig) {
						t.Errorf("decrypt ended with %v, not by %v's default action", cmd.ProcessState, sig)
					}
					if strings.Contains(stderr.String(), "fanseal: error: interrupted") {
						t.Errorf("stderr %q: a handler caught %v", stderr.String(), sig)
					}
					return
				}
				if !strings.Contains(stderr.String(), "fanseal: error: interrupted") || !strings.Contains(stderr.String(), "partial output was removed") {
					t.Errorf("stderr %q", stderr.String())
				}
			})
		}
	}
}

// TestKillLeavesNothing: SIGKILL cannot be caught, but the pending output
// is an unnamed file, which the kernel discards with the process.
func TestKillLeavesNothing(t *testing.T) {
	cmd, dir, _ := stalledDecrypt(t, binary(t))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	keyFilesOnly(t, dir, "SIGKILL")
}
