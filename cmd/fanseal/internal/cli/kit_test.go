package cli

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"filippo.io/age/plugin"
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
	vs, err := testkit.Load("../../../../testdata/vectors")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			if v.Keyring != "" {
				t.Skip("channel stanzas open with a Keyring, which the command line cannot express")
			}
			if why, ok := cliCannot[v.Name]; ok {
				t.Skip(why)
			}
			if err := cliVector(t, v); err != nil {
				t.Errorf("vector %s: %v", v, err)
			}
		})
	}
}

// cliCannot names the vectors whose reader the command line cannot be,
// and why.
var cliCannot = map[string]string{
	// FORMAT.md: a reader holding only a passphrase is not a recipient of
	// an envelope without a type 0x07 stanza (rule 13).
	"scrypt_not_for_x25519": "decrypt holds a passphrase only when given no -i, and then refuses an envelope that is not sealed to a passphrase as a usage error (decrypt needs at least one -i), not as not a recipient",
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
		// Identity lines, and the age-identity lines as identities of the
		// test plugin age-plugin-fskit, which hands them to age's own
		// X25519 identity: decrypt opens type 0x08 stanzas with plugin
		// identities only (its AGE-SECRET-KEY-1… lines are X25519
		// identities, FORMAT.md's "age's spelling").
		lines := v.Identities
		if len(v.AgeIdentities) > 0 {
			t.Setenv("PATH", kitPlugin(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
			for _, a := range v.AgeIdentities {
				lines = append(lines, plugin.EncodeIdentity("fskit", []byte(a)))
			}
		}
		args = []string{"decrypt"}
		if len(lines) > 0 {
			keyFile = writeFile(t, dir, "identities", []byte(strings.Join(lines, "\n")+"\n"))
			args = append(args, "-i", keyFile)
		}
		// Each SSH private key file is an identity file of its own.
		for i, f := range v.SSHIdentities {
			file := writeFile(t, dir, fmt.Sprintf("ssh_key_%d", i), f)
			if keyFile == "" {
				keyFile = file
			}
			args = append(args, "-i", file)
		}
		args = append(args, "-o", out, writeFile(t, dir, "envelope", v.Body))
	}
	var status int
	var stdout, stderr string
	if v.Passphrase != "" && keyFile == "" {
		// decrypt without -i asks the passphrase on the terminal. (With
		// -i it asks none: scrypt_beside_x25519, whose verdict comes
		// before any passphrase, runs with its identity file only.)
		status, stdout, stderr = cliPassphrase(t, v.Passphrase, args...)
	} else {
		status, stdout, stderr = cli(t, "", args...)
	}
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

// kitPlugins is the directory of age-plugin-fskit (testdata/agekitplugin),
// built once.
var kitPlugins struct {
	once     sync.Once
	dir, out string
	err      error
}

// kitPlugin returns the directory that holds age-plugin-fskit, building it
// the first time; it skips the vector under -short.
func kitPlugin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("type 0x08 vectors build the test plugin age-plugin-fskit")
	}
	requireExec(t)
	kitPlugins.once.Do(func() {
		if kitPlugins.dir, kitPlugins.err = os.MkdirTemp("", "fanseal-kit-plugin"); kitPlugins.err != nil {
			return
		}
		var out []byte
		out, kitPlugins.err = exec.Command("go", "build", "-o", filepath.Join(kitPlugins.dir, "age-plugin-fskit"), "./testdata/agekitplugin").CombinedOutput()
		kitPlugins.out = string(out)
	})
	if kitPlugins.err != nil {
		t.Fatalf("building age-plugin-fskit: %v\n%s", kitPlugins.err, kitPlugins.out)
	}
	return kitPlugins.dir
}
