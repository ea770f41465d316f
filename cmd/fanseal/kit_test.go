package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/internal/testkit"
)

// stderrSays is what decrypt's error says for each failure class of the
// conformance kit, after "fanseal: error: ".
var stderrSays = map[string]string{
	testkit.Malformed:      "not a fanseal envelope",
	testkit.Unsupported:    "unsupported envelope",
	testkit.NotRecipient:   "not a recipient",
	testkit.Authentication: "tampered with or is corrupted",
	testkit.Truncated:      "truncated envelope",
	testkit.InvalidKey:     "invalid key", // an identity vector's error names the identity file instead
}

// TestVectors runs the conformance vectors of testdata/vectors through
// fanseal decrypt -i IDENTITY_FILE -o OUTPUT ENVELOPE (key-text vectors of
// recipients through encrypt -r), and checks the exit status, the error
// line, and that a failure leaves no output file behind.
func TestVectors(t *testing.T) {
	vs, err := testkit.Load("../../testdata/vectors")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			if v.Keyring != "" {
				t.Skip("channel stanzas open with a Keyring, which the command line cannot express")
			}
			if err := cliVector(t, v); err != nil {
				t.Errorf("vector %s: %v", v, err)
			}
		})
	}
}

func cliVector(t *testing.T, v *testkit.Vector) error {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	var args []string
	var keyFile string
	if len(v.Recipients) > 0 {
		args = []string{"encrypt", "-o", out}
		for _, r := range v.Recipients {
			args = append(args, "-r", r)
		}
		args = append(args, writeFile(t, dir, "in", []byte("payload")))
	} else {
		keyFile = writeFile(t, dir, "identities", []byte(strings.Join(v.Identities, "\n")+"\n"))
		args = []string{"decrypt", "-i", keyFile, "-o", out, writeFile(t, dir, "envelope", v.Body)}
	}
	status, stdout, stderr := cli(t, "", args...)
	if stdout != "" {
		return fmt.Errorf("fanseal %s wrote %d bytes to standard output", args[0], len(stdout))
	}
	if v.Expect == testkit.Success {
		if status != 0 {
			return fmt.Errorf("status %d (%s), want success", status, strings.TrimSpace(stderr))
		}
		got, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(got); !bytes.Equal(sum[:], v.Payload) {
			return fmt.Errorf("output SHA-256 %x, want %x", sum, v.Payload)
		}
		return nil
	}
	if status != 1 {
		return fmt.Errorf("status %d, want 1 (%s)", status, v.Expect)
	}
	if !strings.HasPrefix(stderr, "fanseal: error: ") || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "panic") {
		return fmt.Errorf("stderr %q, want one line fanseal: error: ...", stderr)
	}
	want, ok := stderrSays[v.Expect]
	if !ok {
		return fmt.Errorf("no error text known for class %s", v.Expect)
	}
	if v.Expect == testkit.InvalidKey && keyFile != "" {
		want = keyFile // the error names the identity file
	}
	if !strings.Contains(stderr, want) {
		return fmt.Errorf("stderr %q does not say %q (%s)", stderr, want, v.Expect)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); name == "out" || strings.HasSuffix(name, ".tmp") {
			return fmt.Errorf("%s left behind after a failure", name)
		}
	}
	return nil
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
