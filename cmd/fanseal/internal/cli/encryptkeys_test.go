//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEncryptToIdentityFile: encrypt -i seals for the public keys of an
// identity file, as age does with -i, in fanseal envelopes and (with
// --age) age files, SSH private keys included; a key given also with -r
// is one recipient, with a warning that names both places.
func TestEncryptToIdentityFile(t *testing.T) {
	dir, keys, pubs := setup(t, "x25519", 2)
	both := writeFile(t, dir, "both.key", append(append(mustRead(t, keys[0]), '\n'), mustRead(t, keys[1])...))
	env := mustRun(t, "to my own keys", "encrypt", "-i", both)
	for _, k := range keys {
		if got := mustRun(t, env, "decrypt", "-i", k); got != "to my own keys" {
			t.Fatalf("decrypt -i %s: %q", k, got)
		}
	}
	if out := mustRun(t, env, "inspect"); !strings.Contains(out, "recipients:  2 (private: tags instead of key identifiers)\n") {
		t.Fatalf("inspect: %s", out)
	}
	status, _, stderr := cli(t, "x", "encrypt", "-r", pubs[0], "-i", keys[0], "-o", filepath.Join(dir, "out.fsl"))
	if status != 0 || !strings.Contains(stderr, "fanseal: warning: "+keys[0]+":") || !strings.Contains(stderr, "the same key as -r #1") {
		t.Fatalf("a key with -r and -i: status %d, stderr %q", status, stderr)
	}
	// --age: age's keys and an SSH private key.
	priv, _ := sshKeyPair(t, dir, "ssh-ed25519")
	ageKey := ageKeyFiles["x25519"]
	out := filepath.Join(dir, "out.age")
	status, _, stderr = cli(t, "to age's keys", "encrypt", "--age", "-i", ageKey, "-i", priv, "-r", agePublicKey(t, ageKey), "-o", out)
	if status != 0 || !strings.Contains(stderr, "fanseal: warning: "+ageKey+" gives the same key as -r #1") {
		t.Fatalf("--age -i: status %d, stderr %q", status, stderr)
	}
	body := mustRead(t, out)
	for _, id := range []string{ageKey, priv} {
		if got := mustRun(t, string(body), "decrypt", "-i", id); got != "to age's keys" {
			t.Fatalf("--age, decrypt -i %s: %q", id, got)
		}
	}
	if got := ageOpen(t, body, ageIdentityOf(t, ageKey)); string(got) != "to age's keys" {
		t.Fatalf("age: %q", got)
	}
}

// TestDuplicateWarning: a key given twice is sealed for once, and the
// warning names both places; a list without duplicates warns of nothing.
func TestDuplicateWarning(t *testing.T) {
	dir, _, pubs := setup(t, "x25519", 2)
	team := writeFile(t, dir, "team.txt", []byte("# alice\n"+pubs[0]+"\n"+pubs[1]+"\n"))
	status, _, stderr := cli(t, "x", "encrypt", "-R", team, "-r", pubs[1], "-o", filepath.Join(dir, "a"))
	if status != 0 || stderr != "fanseal: warning: "+team+":3 gives the same key as -r #1; it is one recipient\n" {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	if status, _, stderr = cli(t, "x", "encrypt", "-R", team, "-o", filepath.Join(dir, "b")); status != 0 || stderr != "" {
		t.Fatalf("no duplicates: status %d, stderr %q", status, stderr)
	}
	agePub := agePublicKey(t, ageKeyFiles["x25519"])
	status, _, stderr = cli(t, "x", "encrypt", "--age", "-r", agePub, "-r", agePub, "-o", filepath.Join(dir, "c"))
	if status != 0 || !strings.Contains(stderr, "fanseal: warning: -r #2 gives the same key as -r #1") {
		t.Fatalf("--age: status %d, stderr %q", status, stderr)
	}
	// decrypt warns of an identity file given twice, in age's words, once.
	_, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, "x", "encrypt", "-r", pubs[0])
	status, out, stderr := cli(t, env, "decrypt", "-i", keys[0], "-i", keys[0], "-i", keys[0])
	if want := "fanseal: warning: duplicate identity file \"" + keys[0] + "\"\n"; status != 0 || out != "x" || stderr != want {
		t.Fatalf("decrypt -i twice: status %d, stderr %q, want %q", status, stderr, want)
	}
}

// mustRead returns the contents of a file.
func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
