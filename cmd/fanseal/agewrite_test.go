package main

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
