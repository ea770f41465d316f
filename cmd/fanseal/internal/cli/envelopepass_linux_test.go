package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ptyRun runs bin with args on a new controlling terminal, answering its
// prompts with answers (onControllingTerminal), and returns the command's
// error, its standard error and what the terminal showed.
func ptyRun(t *testing.T, bin string, answers []string, args ...string) (error, string, string) {
	t.Helper()
	cmd := commandFor(t, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err, shown := onControllingTerminal(t, cmd, answers...)
	return err, stderr.String(), shown
}

// TestEnvelopePassphraseOnTerminal: encrypt -p asks the passphrase twice
// on the controlling terminal (a pseudo-terminal), never echoing it, and
// seals a fanseal envelope that decrypt, asking once, opens with what was
// typed; a wrong passphrase leaves no output.
func TestEnvelopePassphraseOnTerminal(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "plain", []byte("typed twice"))
	env := filepath.Join(dir, "env.fsl")
	const pass = "a passphrase on the terminal"
	err, stderr, shown := ptyRun(t, bin, []string{pass, pass}, "encrypt", "-p", "-o", env, in)
	if err != nil || !strings.Contains(shown, "Confirm passphrase:") {
		t.Fatalf("encrypt -p: %v, stderr %q, terminal %q", err, stderr, shown)
	}
	if strings.Contains(shown, pass) {
		t.Fatalf("the passphrase was echoed: %q", shown)
	}
	if !bytes.HasPrefix(mustRead(t, env), []byte("FANSEAL")) {
		t.Fatal("not a fanseal envelope")
	}
	out := filepath.Join(dir, "out")
	err, stderr, shown = ptyRun(t, bin, []string{pass}, "decrypt", "-o", out, env)
	if got, rerr := os.ReadFile(out); err != nil || rerr != nil || string(got) != "typed twice" {
		t.Fatalf("decrypt: %v, %q, stderr %q", err, got, stderr)
	}
	if strings.Contains(shown, pass) {
		t.Fatalf("the passphrase was echoed: %q", shown)
	}
	os.Remove(out)
	err, stderr, _ = ptyRun(t, bin, []string{"a wrong guess"}, "decrypt", "-o", out, env)
	if _, rerr := os.Stat(out); err == nil || rerr == nil || !strings.Contains(stderr, "tampered with") {
		t.Fatalf("wrong passphrase: %v, output exists %v, stderr %q", err, rerr == nil, stderr)
	}
	// The passphrases typed must match.
	err, stderr, _ = ptyRun(t, bin, []string{pass, "another"}, "encrypt", "-p", "-o", env+"2", in)
	if err == nil || !strings.Contains(stderr, "do not match") {
		t.Fatalf("mismatch: %v, stderr %q", err, stderr)
	}
}
