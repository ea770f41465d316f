//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
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
			if err := o.WriteJSON(struct{}{}); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, report); got != 0o666&^os.FileMode(mask) {
				t.Errorf("umask %#o: bench report has mode %#o", mask, got)
			}
		})
	}
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
	cmd := commandFor(t, bin, "encrypt", "-r", pubs[0])
	cmd.Stdin = strings.NewReader("to nowhere")
	cmd.Stdout = null
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fanseal encrypt > /dev/null: %v: %s", err, stderr.String())
	}
}
