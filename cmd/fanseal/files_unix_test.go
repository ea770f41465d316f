//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// withUmask runs f with the process's umask set to mask.
func withUmask(t *testing.T, mask int, f func()) {
	t.Helper()
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	f()
}

func mode(t *testing.T, name string) os.FileMode {
	t.Helper()
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestOutputModeFollowsUmask: every file the command writes gets the mode
// a new file gets under the user's umask (0o666 less it, 0o600 less it for
// identities), and the temporary file is readable by its owner only.
func TestOutputModeFollowsUmask(t *testing.T) {
	_, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, "private", "encrypt", "-r", pubs[0])
	for _, mask := range []int{0o077, 0o027, 0o002, 0} {
		withUmask(t, mask, func() {
			sub := t.TempDir()
			for _, c := range []struct {
				args  []string
				stdin string
				perm  os.FileMode
			}{
				{[]string{"decrypt", "-i", keys[0], "-o", filepath.Join(sub, "plain")}, env, 0o666},
				{[]string{"encrypt", "-r", pubs[0], "-o", filepath.Join(sub, "env")}, "data", 0o666},
				{[]string{"keygen", "-o", filepath.Join(sub, "id.key")}, "", 0o600},
			} {
				mustRun(t, c.stdin, c.args...)
				name := c.args[len(c.args)-1]
				if got, want := mode(t, name), c.perm&^os.FileMode(mask); got != want {
					t.Errorf("umask %#o: %s %s has mode %#o, want %#o", mask, c.args[0], filepath.Base(name), got, want)
				}
			}
			o, err := createOutput(filepath.Join(sub, "partial"), nil, 0o666)
			if err != nil {
				t.Fatal(err)
			}
			if got := mode(t, o.tmp.Name()); got != 0o600&^os.FileMode(mask) {
				t.Errorf("umask %#o: temporary file has mode %#o, want %#o", mask, got, 0o600&^os.FileMode(mask))
			}
			o.Abort()
			report := filepath.Join(sub, "report.json")
			if err := writeReplacing(report, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, report); got != 0o666&^os.FileMode(mask) {
				t.Errorf("umask %#o: bench report has mode %#o", mask, got)
			}
		})
	}
}

var built struct {
	once sync.Once
	path string
	err  error
}

// binary builds the fanseal command once for the tests that run it as a
// separate process.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "fanseal-bin")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "fanseal")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = err
			t.Logf("%s", out)
		}
	})
	if built.err != nil {
		t.Skipf("cannot build the command: %v", built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.path != "" {
		os.RemoveAll(filepath.Dir(built.path))
	}
	os.Exit(code)
}

// TestSignalRemovesTemporary interrupts a decrypt whose input stalls after
// some authenticated chunks were written to the temporary output file:
// the file must be gone and the command must fail.
func TestSignalRemovesTemporary(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, strings.Repeat("plaintext prefix ", 60000), "encrypt", "-r", pubs[0]) // ~1 MB, 16 chunks
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, "out")
			cmd := exec.Command(bin, "decrypt", "-i", keys[0], "-o", out)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			// Half the envelope, and then the pipe stays open and silent.
			if _, err := io.WriteString(stdin, env[:len(env)/2]); err != nil {
				t.Fatal(err)
			}
			tmp := waitForTemporary(t, dir)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			if err == nil || cmd.ProcessState.Success() {
				t.Fatalf("decrypt interrupted by %v exited with success", sig)
			}
			if _, err := os.Stat(tmp); !os.IsNotExist(err) {
				t.Fatalf("temporary file %s left after %v: %v", filepath.Base(tmp), sig, err)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("output file exists after %v", sig)
			}
			if !strings.Contains(stderr.String(), "fanseal: error: interrupted") || !strings.Contains(stderr.String(), "partial output was removed") {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// waitForTemporary returns the temporary output file in dir once it holds
// some plaintext.
func waitForTemporary(t *testing.T, dir string) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		matches, _ := filepath.Glob(filepath.Join(dir, ".out.*.tmp"))
		if len(matches) == 1 {
			if st, err := os.Stat(matches[0]); err == nil && st.Size() > 0 {
				return matches[0]
			}
		}
	}
	t.Fatal("no temporary output file with plaintext appeared")
	return ""
}

// TestEncryptToDevNull: /dev/null is a character device but not a
// terminal, so a binary envelope may go there.
func TestEncryptToDevNull(t *testing.T) {
	bin := binary(t)
	_, _, pubs := setup(t, "x25519", 1)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := exec.Command(bin, "encrypt", "-r", pubs[0])
	cmd.Stdin = strings.NewReader("to nowhere")
	cmd.Stdout = null
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fanseal encrypt > /dev/null: %v: %s", err, stderr.String())
	}
}
