//go:build unix

package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"filippo.io/age/armor"
	"golang.org/x/crypto/ssh"
)

// ageOpen opens an age file with age's own library, and fails the test
// if it cannot.
func ageOpen(t *testing.T, body []byte, ids ...age.Identity) []byte {
	t.Helper()
	var src io.Reader = bytes.NewReader(body)
	if bytes.HasPrefix(body, []byte(armor.Header)) {
		src = armor.NewReader(src)
	}
	r, err := age.Decrypt(src, ids...)
	if err != nil {
		t.Fatalf("age cannot open the file: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("age cannot read the payload: %v", err)
	}
	return out
}

// ageIdentityOf returns age's identity of an age-keygen identity file.
func ageIdentityOf(t *testing.T, file string) age.Identity {
	t.Helper()
	ids, err := age.ParseIdentities(strings.NewReader(secretLine(t, file)))
	if err != nil {
		t.Fatal(err)
	}
	return ids[0]
}

// sshKeyPair writes an OpenSSH private key and returns its path and its
// authorized_keys line, with a comment.
func sshKeyPair(t *testing.T, dir, kind string) (privFile, authorized string) {
	t.Helper()
	var priv any
	switch kind {
	case "ssh-ed25519":
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv = k
	case "ssh-rsa":
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		priv = k
	}
	block, err := ssh.MarshalPrivateKey(priv, "alice@laptop")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	privFile = writeFile(t, dir, "id_"+strings.TrimPrefix(kind, "ssh-"), pem.EncodeToMemory(block))
	authorized = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))) + " alice@laptop"
	return privFile, authorized
}

// TestEncryptAge: encrypt --age writes an age file, binary or armored,
// that age's library opens, for age's X25519 and post-quantum keys in
// either spelling, and for SSH public keys; the same key twice is one
// stanza.
func TestEncryptAge(t *testing.T) {
	payload := bytes.Repeat([]byte("written by fanseal for age\n"), 4000)
	dir := t.TempDir()
	in := writeFile(t, dir, "plain", payload)
	for suite, keyFile := range ageKeyFiles {
		pub := agePublicKey(t, keyFile)
		fanPub := strings.TrimSpace(mustRun(t, "", "keygen", "-y", keyFile))
		for _, armored := range []bool{false, true} {
			out := filepath.Join(dir, suite+".age")
			os.Remove(out)
			args := []string{"encrypt", "--age", "-r", pub, "-r", fanPub, "-o", out}
			if armored {
				args = append(args, "-a")
			}
			mustRun(t, "", append(args, in)...)
			body, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if armored != bytes.HasPrefix(body, []byte(armor.Header)) || !armored && !bytes.HasPrefix(body, []byte("age-encryption.org/v1\n")) {
				t.Fatalf("%s armored=%v: the file starts %q", suite, armored, body[:30])
			}
			if got := ageOpen(t, body, ageIdentityOf(t, keyFile)); !bytes.Equal(got, payload) {
				t.Fatalf("%s armored=%v: age reads another payload", suite, armored)
			}
			var rep ageInspection
			if err := json.Unmarshal([]byte(mustRun(t, "", "inspect", "--json", out)), &rep); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"x25519": "X25519", "mlkem768x25519": "mlkem768x25519"}[suite]
			if len(rep.StanzaTypes) != 1 || rep.StanzaTypes[0] != want || rep.Armored != armored || rep.Sizes.MinPayload != int64(len(payload)) {
				t.Fatalf("%s: one key in two spellings: inspect says %+v", suite, rep)
			}
		}
	}
	for _, kind := range []string{"ssh-ed25519", "ssh-rsa"} {
		priv, authorized := sshKeyPair(t, dir, kind)
		keys := writeFile(t, dir, "authorized_keys", []byte("# alice\n"+authorized+"\n"))
		body := []byte(mustRun(t, "for alice's ssh key", "encrypt", "--age", "-a", "-R", keys))
		pem, err := os.ReadFile(priv)
		if err != nil {
			t.Fatal(err)
		}
		id, err := agessh.ParseIdentity(pem)
		if err != nil {
			t.Fatal(err)
		}
		if got := ageOpen(t, body, id); string(got) != "for alice's ssh key" {
			t.Fatalf("%s: %q", kind, got)
		}
		if got := mustRun(t, string(body), "decrypt", "-i", priv); got != "for alice's ssh key" {
			t.Fatalf("%s: fanseal decrypt: %q", kind, got)
		}
	}
}

// TestEncryptAgeRefusesFansealSuites: a p256 or secp256k1 key has no age
// stanza; encrypt --age names the key and its suite, and writes nothing.
func TestEncryptAgeRefusesFansealSuites(t *testing.T) {
	for _, suite := range []string{"p256", "secp256k1"} {
		dir, _, pubs := setup(t, suite, 1)
		team := writeFile(t, dir, "team.txt", []byte(agePublicKey(t, ageKeyFiles["x25519"])+"\n# bob\n"+pubs[0]+"\n"))
		out := filepath.Join(dir, "out.age")
		mustFail(t, "x", team+":3: age has no recipients of this kind: "+suite+" is a fanseal-only suite", "encrypt", "--age", "-R", team, "-o", out)
		mustFail(t, "x", "-r #1 ("+pubs[0][:20], "encrypt", "--age", "-r", pubs[0])
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: an output file appeared", suite)
		}
	}
	mustFail(t, "x", "an age file never carries key identifiers", "encrypt", "--age", "--anonymous", "-r", agePublicKey(t, ageKeyFiles["x25519"]))
	mustFail(t, "x", "this is a secret key", "encrypt", "--age", "-r", secretLine(t, ageKeyFiles["x25519"]))
	mustFail(t, "x", "can't mix post-quantum and classic recipients", "encrypt", "--age", "-r", agePublicKey(t, ageKeyFiles["x25519"]), "-r", agePublicKey(t, ageKeyFiles["mlkem768x25519"]))
}

// withPassphrases makes the passphrase prompts answer answers in turn,
// and records the prompts.
func withPassphrases(t *testing.T, answers ...string) (prompts *[]string) {
	t.Helper()
	prompts = new([]string)
	saved := readPassphrase
	readPassphrase = func(prompt string) ([]byte, error) {
		*prompts = append(*prompts, prompt)
		if len(answers) == 0 {
			t.Fatalf("an unexpected prompt: %q", prompt)
		}
		a := answers[0]
		answers = answers[1:]
		return []byte(a), nil
	}
	t.Cleanup(func() { readPassphrase = saved })
	return prompts
}

// fastScrypt makes new passphrase files use a small work factor.
func fastScrypt(t *testing.T) {
	saved := scryptWorkFactor
	scryptWorkFactor = func() int { return 10 }
	t.Cleanup(func() { scryptWorkFactor = saved })
}

// TestEncryptAgePassphrase: encrypt --age -p asks the passphrase twice
// and writes an age file with one scrypt stanza, which age's library and
// fanseal decrypt open with it; mismatched passphrases, and -p with
// recipients, are refused with no output.
func TestEncryptAgePassphrase(t *testing.T) {
	fastScrypt(t)
	dir := t.TempDir()
	in := writeFile(t, dir, "plain", []byte("sealed for a passphrase"))
	out := filepath.Join(dir, "out.age")
	prompts := withPassphrases(t, "long enough", "long enough")
	mustRun(t, "", "encrypt", "--age", "-p", "-a", "-o", out, in)
	if len(*prompts) != 2 || !strings.Contains((*prompts)[1], "Confirm") {
		t.Fatalf("prompts %q", *prompts)
	}
	body := mustRead(t, out)
	if !bytes.Contains(mustRead(t, out), []byte(armor.Header)) {
		t.Fatal("not armored")
	}
	var rep ageInspection
	if err := json.Unmarshal([]byte(mustRun(t, "", "inspect", "--json", out)), &rep); err != nil || len(rep.StanzaTypes) != 1 || rep.StanzaTypes[0] != "scrypt" {
		t.Fatalf("inspect: %+v %v", rep, err)
	}
	id, err := age.NewScryptIdentity("long enough")
	if err != nil {
		t.Fatal(err)
	}
	if got := ageOpen(t, body, id); string(got) != "sealed for a passphrase" {
		t.Fatalf("age: %q", got)
	}
	withPassphrase(t, "long enough")
	if got := mustRun(t, string(body), "decrypt"); got != "sealed for a passphrase" {
		t.Fatalf("fanseal decrypt: %q", got)
	}
	os.Remove(out)
	withPassphrases(t, "one", "another")
	mustFail(t, "", "passphrases didn't match", "encrypt", "--age", "-p", "-o", out, in)
	if _, err := os.Stat(out); err == nil {
		t.Fatal("an output file appeared")
	}
	mustFail(t, "", "a passphrase is alone in its file", "encrypt", "--age", "-p", "-r", agePublicKey(t, ageKeyFiles["x25519"]), in)
	if n := tunedScryptWorkFactor(); n < 18 || n > ageMaxScryptWorkFactor {
		t.Fatalf("tuned work factor %d, want 18 to %d", n, ageMaxScryptWorkFactor)
	}
}
