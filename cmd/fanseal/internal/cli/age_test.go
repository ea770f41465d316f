package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
)

// Files written by age-keygen (filippo.io/age v1.3.2), comments included.
var ageKeyFiles = map[string]string{
	"x25519":         "../../../../testdata/age/x25519.key",
	"mlkem768x25519": "../../../../testdata/age/mlkem768x25519.key",
}

// agePublicKey returns the "# public key:" line age-keygen wrote.
func agePublicKey(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if pub, ok := strings.CutPrefix(line, "# public key: "); ok {
			return pub
		}
	}
	t.Fatalf("%s has no public key line", file)
	return ""
}

func TestAgeKeys(t *testing.T) {
	for suite, ageFile := range ageKeyFiles {
		t.Run(suite, func(t *testing.T) {
			agePub := agePublicKey(t, ageFile)
			dir, keys, pubs := setup(t, suite, 1)
			// age's recipients file, mixed with a fanseal recipient.
			team := filepath.Join(dir, "team.txt")
			os.WriteFile(team, []byte("# alice (age)\n"+agePub+"\n"), 0o644)
			env := mustRun(t, "for the team", "encrypt", "-R", team, "-r", pubs[0])
			for _, id := range []string{ageFile, keys[0]} {
				if got := mustRun(t, env, "decrypt", "-i", id); got != "for the team" {
					t.Fatalf("decrypt -i %s: %q", id, got)
				}
			}
			// -r with age's spelling, and the age identity in fanseal's.
			env = mustRun(t, "to alice", "encrypt", "-r", agePub)
			for _, flags := range [][]string{{"-y"}, {"--age", "-y"}} {
				if got := strings.TrimSpace(mustRun(t, "", append(append([]string{"keygen"}, flags...), ageFile)...)); got != agePub {
					t.Fatalf("keygen %v = %q, want age-keygen's %q", flags, got, agePub)
				}
			}
			r, err := fanseal.ParseRecipient(agePub)
			if err != nil {
				t.Fatal(err)
			}
			fanPub := r.String()
			if !strings.HasPrefix(fanPub, "fanseal_"+suite+"_") {
				t.Fatalf("fanseal's spelling of %s: %q", agePub, fanPub)
			}
			if got := mustRun(t, env, "decrypt", "-i", keys[0], "-i", ageFile); got != "to alice" {
				t.Fatalf("decrypt with mixed identity files: %q", got)
			}
			// The same envelope sealed to the fanseal spelling opens too.
			env = mustRun(t, "to alice again", "encrypt", "-r", fanPub)
			if got := mustRun(t, env, "decrypt", "-i", ageFile); got != "to alice again" {
				t.Fatalf("fanseal spelling: %q", got)
			}
		})
	}
}

func TestKeygenAge(t *testing.T) {
	dir := t.TempDir()
	for _, suite := range []string{"x25519", "mlkem768x25519"} {
		key := filepath.Join(dir, suite+".key")
		pub := keygenTo(t, key, "--age", "--suite", suite)
		want := map[string]string{"x25519": "age1", "mlkem768x25519": "age1pq1"}[suite]
		if !strings.HasPrefix(pub, want) {
			t.Fatalf("keygen --age printed %q", pub)
		}
		body, _ := os.ReadFile(key)
		if !strings.Contains(string(body), "# public key: "+pub+"\nAGE-SECRET-KEY-") {
			t.Fatalf("identity file:\n%s", body)
		}
		if got := strings.TrimSpace(mustRun(t, "", "keygen", "--age", "-y", key)); got != pub {
			t.Fatalf("keygen --age -y = %q, want %q", got, pub)
		}
		env := mustRun(t, "x", "encrypt", "-r", pub)
		if got := mustRun(t, env, "decrypt", "-i", key); got != "x" {
			t.Fatalf("round trip: %q", got)
		}
	}
	mustFail(t, "", "age has no form for p256", "keygen", "--age", "--suite", "p256")
	_, keys, _ := setup(t, "secp256k1", 1)
	mustFail(t, "", "age has no form for secp256k1", "keygen", "--age", "-y", keys[0])
}

func TestAgeKeysRefused(t *testing.T) {
	dir := t.TempDir()
	ssh := filepath.Join(dir, "id_ed25519")
	os.WriteFile(ssh, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"), 0o600)
	pass := filepath.Join(dir, "keys.txt.age")
	os.WriteFile(pass, []byte("age-encryption.org/v1\n-> scrypt c2FsdA 18\nAAAA\n--- AAAA\n"), 0o600)
	sshRecipients := filepath.Join(dir, "authorized_keys")
	os.WriteFile(sshRecipients, []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmLgBVdX3GQCc1o3sA8oOE+Ebs1v8c7OEh7eVW1Mb3U alice\n"), 0o644)
	// SSH keys and plugins work in fanseal envelopes now
	// (envelopekeys_test.go); damaged ones are refused with the place.
	mustFail(t, "x", "ssh-ed25519 key is not a point of edwards25519", "encrypt", "-r", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmLgBVdX3GQCc1o3sA8oOE+Ebs1v8c7OEh7eVW1Mb3U")
	mustFail(t, "x", sshRecipients+":1: invalid key: ssh-ed25519 key", "encrypt", "-R", sshRecipients)
	mustFail(t, "x", "age-encryption.org/awesome#plugins", "encrypt", "-r", "age1yubikey1qqqsyqcyq5rqwzqfpg9scrgwpugpzysnzs23v9ccrydpk8qarc0jqmenk29")
	mustFail(t, "", ssh+": invalid key: not an SSH private key fanseal can use", "decrypt", "-i", ssh)
	mustFail(t, "", "decrypting the identity file: failed to read header", "decrypt", "-i", pass)
	mustFail(t, "", "decrypt: --passphrase: decrypt needs no -p", "decrypt", "--passphrase")
	mustFail(t, "", "the test answers no passphrase prompt here", "encrypt", "-p")
	mustFail(t, "", "invalid key: ssh-rsa key", "encrypt", "-r", "ssh-rsa AAAAB3NzaC1yc2E")
}
