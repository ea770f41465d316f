//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
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
			if st, err := o.file.Stat(); err != nil || st.Mode().Perm() != 0o600&^os.FileMode(mask) {
				t.Errorf("umask %#o: temporary file has mode %v (%v), want %#o", mask, st.Mode().Perm(), err, 0o600&^os.FileMode(mask))
			}
			o.Abort()
			report := filepath.Join(sub, "report.json")
			o, err = createOutput(report, nil, 0o666)
			if err != nil {
				t.Fatal(err)
			}
			if err := o.writeJSON(struct{}{}); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, report); got != 0o666&^os.FileMode(mask) {
				t.Errorf("umask %#o: bench report has mode %#o", mask, got)
			}
		})
	}
}

// A build is the fanseal command built once, with some go build flags,
// for the tests that run it as a separate process.
type build struct {
	once  sync.Once
	flags []string
	path  string
	err   error
}

var (
	built      = &build{}
	builtNamed = &build{flags: []string{"-ldflags", "-X main.unnamedOff=1"}} // named temporary files only
)

// binary builds the fanseal command once and returns its path.
func binary(t *testing.T) string { return built.get(t) }

func (b *build) get(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "fanseal-bin")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "fanseal")
		out, err := exec.Command("go", append(append([]string{"build", "-o", b.path}, b.flags...), ".")...).CombinedOutput()
		if err != nil {
			b.err = err
			t.Logf("%s", out)
		}
	})
	if b.err != nil {
		t.Skipf("cannot build the command: %v", b.err)
	}
	return b.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, b := range []*build{built, builtNamed} {
		if b.path != "" {
			os.RemoveAll(filepath.Dir(b.path))
		}
	}
	os.Exit(code)
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
