package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
)

// TestPassphraseOnTerminal: decrypt asks the passphrase of an age file
// on its controlling terminal (a pseudo-terminal here), without echoing
// it, and opens the file with what was typed there.
func TestPassphraseOnTerminal(t *testing.T) {
	bin := binary(t)
	r, err := age.NewScryptRecipient("typed on the terminal")
	if err != nil {
		t.Fatal(err)
	}
	r.SetWorkFactor(10)
	dir := t.TempDir()
	file := writeFile(t, dir, "pass.age", ageSeal(t, []byte("behind a passphrase"), false, r))
	for _, typed := range []string{"typed on the terminal", "a wrong guess"} {
		out := filepath.Join(dir, "out")
		os.Remove(out)
		err, stderr, shown := ptyRun(t, bin, []string{typed}, "decrypt", "-o", out, file)
		if strings.Contains(shown, typed) {
			t.Fatalf("the passphrase was echoed: %q", shown)
		}
		got, readErr := os.ReadFile(out)
		if typed == "a wrong guess" {
			if err == nil || readErr == nil || !strings.Contains(stderr, "incorrect passphrase") {
				t.Fatalf("wrong passphrase: %v, output %v, stderr %q", err, readErr == nil, stderr)
			}
			continue
		}
		if err != nil || string(got) != "behind a passphrase" {
			t.Fatalf("%v: %q, stderr %q", err, got, stderr)
		}
	}
}
