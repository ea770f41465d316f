//go:build unix

package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"filippo.io/age/plugin"
	"github.com/fanseal/fanseal"
	"golang.org/x/crypto/ssh"
)

// writeSSHKey writes an OpenSSH private key file name and name.pub (with
// a comment), the private key protected by passphrase if it is not empty.
func writeSSHKey(t *testing.T, dir, name string, key any, passphrase string) (priv, pub string) {
	t.Helper()
	var block *pem.Block
	var err error
	if passphrase == "" {
		block, err = ssh.MarshalPrivateKey(key, name)
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(key, name, []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))) + " " + name + "@example.com\n"
	priv = writeFile(t, dir, name, pem.EncodeToMemory(block))
	os.Chmod(priv, 0o600)
	return priv, writeFile(t, dir, name+".pub", []byte(line))
}

var testRSAKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// TestSSHKeysFanseal: ssh-ed25519 and ssh-rsa keys, as .pub files and in
// an authorized_keys-style list with comments (GitHub's .keys form),
// seal fanseal envelopes that their private key files open; the same
// files seal and open age files with --age, which age's own command
// opens too.
func TestSSHKeysFanseal(t *testing.T) {
	dir := t.TempDir()
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	edPriv, edPub := writeSSHKey(t, dir, "id_ed25519", ek, "")
	rsaPriv, rsaPub := writeSSHKey(t, dir, "id_rsa", testRSAKey(), "")
	keys := writeFile(t, dir, "alice.keys", []byte("# alice's keys, as GitHub serves them\n"+
		string(mustRead(t, edPub))+"\n"+string(mustRead(t, rsaPub))))
	payload := "sealed to SSH keys"
	in := writeFile(t, dir, "plain", []byte(payload))
	env := filepath.Join(dir, "env.fsl")
	mustRun(t, "", "encrypt", "-R", keys, "-o", env, in)
	for _, priv := range []string{edPriv, rsaPriv} {
		if got := mustRun(t, "", "decrypt", "-i", priv, env); got != payload {
			t.Fatalf("decrypt -i %s: %q", filepath.Base(priv), got)
		}
	}
	// -r with the line itself, comment and all.
	line := strings.TrimSpace(string(mustRead(t, edPub)))
	mustRun(t, "", "encrypt", "-r", line, "-o", env, in)
	if got := mustRun(t, "", "decrypt", "-i", edPriv, env); got != payload {
		t.Fatalf("-r ssh-ed25519: %q", got)
	}
	// keygen -y prints the public key of an SSH private key file.
	if got := mustRun(t, "", "keygen", "-y", edPriv); !strings.Contains(got, strings.Join(strings.Fields(line)[:2], " ")) {
		t.Fatalf("keygen -y of an SSH key: %q", got)
	}
	// The same files with --age: fanseal and age open the age file.
	ageFile := filepath.Join(dir, "env.age")
	mustRun(t, "", "encrypt", "--age", "-R", keys, "-o", ageFile, in)
	for _, priv := range []string{edPriv, rsaPriv} {
		if got := mustRun(t, "", "decrypt", "-i", priv, ageFile); got != payload {
			t.Fatalf("decrypt of the age file -i %s: %q", filepath.Base(priv), got)
		}
		if got := runAge(t, nil, nil, "age", "-d", "-i", priv, ageFile); string(got) != payload {
			t.Fatalf("age -d -i %s: %q", filepath.Base(priv), got)
		}
	}
	// A key the envelope is not for.
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	otherPriv, _ := writeSSHKey(t, dir, "id_other", other, "")
	mustFail(t, "", "not a recipient", "decrypt", "-i", otherPriv, env)
}

// TestSSHKeysRefused: key types fanseal cannot use are refused naming the
// file, the line and the reason; so are RSA keys under 2048 bits and
// authorized_keys lines with options.
func TestSSHKeysRefused(t *testing.T) {
	dir := t.TempDir()
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	_, edPub := writeSSHKey(t, dir, "id_ed25519", ek, "")
	good := strings.TrimSpace(string(mustRead(t, edPub)))
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	smallPriv, smallPub := writeSSHKey(t, dir, "id_rsa_1024", small, "")
	for _, c := range []struct{ line, why string }{
		{"sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIEX/dQ0v4127bEo8eeG1EV0ApO2lWbSnN6RWusn/NjqIAAAABHNzaDo= bob@yubikey", "security key"},
		{"ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQ= carol", "P-384"},
		{`no-pty ` + good, "without options"},
		{strings.TrimSpace(string(mustRead(t, smallPub))), "1024 bits"},
	} {
		file := writeFile(t, dir, "team.keys", []byte("# team\n"+good+"\n"+c.line+"\n"))
		mustFail(t, "x", "team.keys:3", "encrypt", "-R", file, "-o", filepath.Join(dir, "out"))
		mustFail(t, "x", c.why, "encrypt", "-R", file, "-o", filepath.Join(dir, "out"))
	}
	mustFail(t, "x", "1024 bits", "decrypt", "-i", smallPriv, edPub)
}

// TestSSHKeyPassphrase: a passphrase-protected SSH private key asks its
// passphrase on the terminal (the prompt is the test's here; the
// pseudo-terminal tests drive the real one).
func TestSSHKeyPassphrase(t *testing.T) {
	dir := t.TempDir()
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	priv, pub := writeSSHKey(t, dir, "id_ed25519", ek, "open sesame")
	in := writeFile(t, dir, "plain", []byte("behind two passphrases"))
	env := filepath.Join(dir, "env.fsl")
	mustRun(t, "", "encrypt", "-R", pub, "-o", env, in)
	prompts := withPassphrases(t, "open sesame")
	if got := mustRun(t, "", "decrypt", "-i", priv, env); got != "behind two passphrases" || len(*prompts) != 1 || !strings.Contains((*prompts)[0], "id_ed25519") {
		t.Fatalf("%q, prompts %q", got, *prompts)
	}
	withPassphrases(t, "wrong")
	mustFail(t, "", "passphrase is wrong", "decrypt", "-i", priv, env)
	// Sealing to it, an identified envelope that is not for it, and a
	// private one that another key given opens, ask nothing.
	withPassphrases(t) // any prompt fails the test
	mustRun(t, "", "encrypt", "-i", priv, "-o", env, in)
	other := filepath.Join(dir, "other.fsl")
	mustRun(t, "", "encrypt", "--identified", "-r", agePublicKey(t, ageKeyFiles["x25519"]), "-o", other, in)
	mustFail(t, "", "not a recipient", "decrypt", "-i", priv, other)
	mustRun(t, "", "encrypt", "-r", agePublicKey(t, ageKeyFiles["x25519"]), "-o", other, in)
	if got := mustRun(t, "", "decrypt", "-i", priv, "-i", ageKeyFiles["x25519"], other); got != "behind two passphrases" {
		t.Fatalf("decrypt with a protected SSH key beside the envelope's key: %q", got)
	}
	// Alone, only the key can tell that a private envelope is not for it.
	prompts = withPassphrases(t, "open sesame")
	mustFail(t, "", "not a recipient", "decrypt", "-i", priv, other)
	if len(*prompts) != 1 {
		t.Fatalf("prompts %q", *prompts)
	}
}

// TestEncryptPassphrase: encrypt -p seals a fanseal envelope to a
// passphrase asked twice, alone in it; decrypt without -i asks it once;
// a work factor over the bound is refused before the passphrase is asked.
func TestEncryptPassphrase(t *testing.T) {
	fastScrypt(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "plain", []byte("sealed for a passphrase"))
	env := filepath.Join(dir, "env.fsl")
	prompts := withPassphrases(t, "long enough", "long enough")
	mustRun(t, "", "encrypt", "-p", "-a", "-o", env, in)
	if len(*prompts) != 2 || !strings.Contains((*prompts)[1], "Confirm") {
		t.Fatalf("prompts %q", *prompts)
	}
	if !bytes.HasPrefix(mustRead(t, env), []byte("-----BEGIN FANSEAL ENVELOPE-----")) {
		t.Fatal("not a fanseal envelope")
	}
	withPassphrases(t, "long enough")
	if got := mustRun(t, "", "decrypt", env); got != "sealed for a passphrase" {
		t.Fatalf("decrypt: %q", got)
	}
	withPassphrases(t, "a wrong guess")
	mustFail(t, "", "tampered with", "decrypt", "-o", filepath.Join(dir, "out"), env)
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Fatal("an output file appeared")
	}
	mustFail(t, "", "a passphrase is alone in its envelope", "encrypt", "-p", "-r", agePublicKey(t, ageKeyFiles["x25519"]), in)
	withPassphrases(t, "one", "another")
	mustFail(t, "", "passphrases didn't match", "encrypt", "-p", "-o", env, in)

	// Work factor 2^23, over the bound of 2^22: refused, nothing asked.
	big := overBoundEnvelope(t)
	withPassphrases(t) // any prompt fails the test
	mustFail(t, string(big), "work factor is above what fanseal accepts", "decrypt")
	mustFail(t, string(big), "at most 2^22", "decrypt")
	// An envelope that is not a passphrase's still needs -i.
	mustRun(t, "", "encrypt", "-r", agePublicKey(t, ageKeyFiles["x25519"]), "-o", env, in)
	mustFail(t, "", "decrypt needs at least one -i", "decrypt", env)
}

// TestPluginFanseal: age plugin recipients and identities (the test's
// plugin, built in the test, speaking the real protocol) seal and open
// fanseal envelopes, beside an X25519 recipient.
func TestPluginFanseal(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Dir(ageTool(t, "age-plugin-fstest"))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	recipient := plugin.EncodeRecipient("fstest", []byte("alice"))
	id := writeFile(t, dir, "plugin.key", []byte("# the test plugin\n"+plugin.EncodeIdentity("fstest", nil)+"\n"))
	payload := "through a plugin, in a fanseal envelope"
	in := writeFile(t, dir, "plain", []byte(payload))
	env := filepath.Join(dir, "env.fsl")
	mustRun(t, "", "encrypt", "-r", recipient, "-r", agePublicKey(t, ageKeyFiles["x25519"]), "-o", env, in)
	if !bytes.HasPrefix(mustRead(t, env), []byte("FANSEAL")) {
		t.Fatal("not a fanseal envelope")
	}
	if got := mustRun(t, "", "decrypt", "-i", id, env); got != payload {
		t.Fatalf("decrypt with the plugin: %q", got)
	}
	if got := mustRun(t, "", "decrypt", "-i", ageKeyFiles["x25519"], env); got != payload {
		t.Fatalf("decrypt with the X25519 key: %q", got)
	}
	mustFail(t, "x", "age-encryption.org/awesome#plugins", "encrypt", "-r", plugin.EncodeRecipient("nosuchplugin", nil), "-o", env)
	// encrypt -i with the plugin's identity file seals to the plugin's
	// recipient, as age's -e -i does, beside another key's.
	mustRun(t, "", "encrypt", "-i", id, "-r", agePublicKey(t, ageKeyFiles["x25519"]), "-o", env, in)
	if got := mustRun(t, "", "decrypt", "-i", id, env); got != payload {
		t.Fatalf("decrypt of encrypt -i with the plugin: %q", got)
	}
	// decrypt -j NAME asks the plugin, without identity data, for a
	// fanseal envelope as for an age file.
	if got := mustRun(t, "", "decrypt", "-j", "fstest", env); got != payload {
		t.Fatalf("decrypt -j fstest: %q", got)
	}
}

// TestInspectNewStanzas: inspect names the ssh-rsa, scrypt and age
// stanzas of an envelope; keygen -y of a plugin identity says why it
// prints nothing.
func TestInspectNewStanzas(t *testing.T) {
	fastScrypt(t)
	dir := t.TempDir()
	_, rsaPub := writeSSHKey(t, dir, "id_rsa", testRSAKey(), "")
	in := writeFile(t, dir, "plain", []byte("x"))
	env := filepath.Join(dir, "env.fsl")
	mustRun(t, "", "encrypt", "-R", rsaPub, "-o", env, in)
	if got := mustRun(t, "", "inspect", env); !strings.Contains(got, "ssh-rsa") {
		t.Fatalf("inspect of an ssh-rsa envelope: %s", got)
	}
	mustRun(t, "", "encrypt", "--identified", "-R", rsaPub, "-o", env, in)
	if got := mustRun(t, "", "inspect", "-R", rsaPub, env); !strings.Contains(got, "id_rsa.pub:1") {
		t.Fatalf("inspect -R of an identified ssh-rsa envelope does not name the key: %s", got)
	}
	if status, _, errOut := cli(t, "", "encrypt", "-v", "-R", rsaPub, "-o", env, in); status != 0 || !strings.Contains(errOut, "ssh-rsa ") || strings.Contains(errOut, "suite(") {
		t.Fatalf("encrypt -v: status %d, stderr %q", status, errOut)
	}
	withPassphrases(t, "pw", "pw")
	mustRun(t, "", "encrypt", "-p", "-o", env, in)
	if got := mustRun(t, "", "inspect", env); !strings.Contains(got, "scrypt (work factor 2^10)") {
		t.Fatalf("inspect of a passphrase envelope: %s", got)
	}
	id := writeFile(t, dir, "plugin.key", []byte(plugin.EncodeIdentity("fstest", nil)+"\n"))
	mustFail(t, "", "the plugin (age-plugin-NAME) prints its recipient", "keygen", "-y", id)
}

// overBoundEnvelope returns an envelope whose passphrase stanza names the
// work factor 2^23, one over the reader's bound, without paying for it:
// sealing at 2^23 would take 8 GiB (and thrice that under the race
// detector). It seals at 2^1 and sets the stanza's log_n byte to 23; the
// byte is the one whose change the library refuses as over the bound,
// before it asks for a passphrase.
func overBoundEnvelope(t *testing.T) []byte {
	t.Helper()
	r, err := fanseal.NewScryptRecipient([]byte("p"), 1)
	if err != nil {
		t.Fatal(err)
	}
	env, err := (&fanseal.Sealer{}).SealBytes([]byte("m"), r)
	if err != nil {
		t.Fatal(err)
	}
	never := fanseal.NewScryptIdentityFunc(func() ([]byte, error) { return nil, errors.New("asked") }, 0)
	for i, b := range env {
		if b != 1 {
			continue
		}
		e := bytes.Clone(env)
		e[i] = 23
		if _, err := fanseal.OpenBytes(e, never); errors.Is(err, fanseal.ErrScryptWorkFactor) {
			return e
		}
	}
	t.Fatal("no log_n byte found")
	return nil
}
