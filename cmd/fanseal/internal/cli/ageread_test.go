//go:build unix

package cli

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"filippo.io/age/armor"
	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/internal/format"
	"golang.org/x/crypto/ssh"
)

// The tests answer only the passphrase prompts they expect
// (withPassphrase); any other fails, rather than wait on a terminal.
// The programs the scripts run (scriptCommands) keep the real prompt.
var terminalPassphrase = readPassphrase

func init() {
	readPassphrase = func(prompt string) ([]byte, error) {
		return nil, errors.New("the test answers no passphrase prompt here: " + prompt)
	}
}

// ageSeal writes payload as an age file for recipients with age's own
// library, armored or not.
func ageSeal(t *testing.T, payload []byte, armored bool, recipients ...age.Recipient) []byte {
	t.Helper()
	var buf bytes.Buffer
	var dst io.Writer = &buf
	var aw io.WriteCloser
	if armored {
		aw = armor.NewWriter(&buf)
		dst = aw
	}
	w, err := age.Encrypt(dst, recipients...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(payload); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if aw != nil {
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// withPassphrase makes the passphrase prompts answer pass, and counts
// the prompts in *asked.
func withPassphrase(t *testing.T, pass string) (asked *int) {
	t.Helper()
	asked = new(int)
	saved := readPassphrase
	readPassphrase = func(string) ([]byte, error) { *asked++; return []byte(pass), nil }
	t.Cleanup(func() { readPassphrase = saved })
	return asked
}

// ageRecipientOf returns age's recipient of an age-keygen identity file.
func ageRecipientOf(t *testing.T, file string) age.Recipient {
	t.Helper()
	pub := agePublicKey(t, file)
	if strings.HasPrefix(pub, "age1pq1") {
		r, err := age.ParseHybridRecipient(pub)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r, err := age.ParseX25519Recipient(pub)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// decryptAgeTo runs decrypt -o on the age file body and returns the
// status, the payload written (nil if no file appeared) and stderr.
func decryptAgeTo(t *testing.T, body []byte, args ...string) (int, []byte, string) {
	t.Helper()
	dir := t.TempDir()
	in := writeFile(t, dir, "file.age", body)
	out := filepath.Join(dir, "out")
	status, _, errOut := cli(t, "", append(append([]string{"decrypt"}, args...), "-o", out, in)...)
	got, err := os.ReadFile(out)
	if err != nil {
		got = nil
	}
	return status, got, errOut
}

// TestDecryptAgeFile: files written by age's library, binary or armored,
// open with age-keygen's identity files, with fanseal's spelling of the
// same keys, and among other identities; a file for someone else is
// refused as an age file.
func TestDecryptAgeFile(t *testing.T) {
	payload := bytes.Repeat([]byte("an age file, opened by fanseal\n"), 5000) // several chunks
	for suite, keyFile := range ageKeyFiles {
		for _, armored := range []bool{false, true} {
			body := ageSeal(t, payload, armored, ageRecipientOf(t, keyFile))
			status, got, errOut := decryptAgeTo(t, body, "-i", keyFile)
			if status != 0 || !bytes.Equal(got, payload) {
				t.Fatalf("%s armored=%v: status %d, %d bytes, stderr %q", suite, armored, status, len(got), errOut)
			}
			// The same key in fanseal's spelling, after another identity.
			_, keys, _ := setup(t, "p256", 1)
			fan := writeFile(t, t.TempDir(), "fan.key", []byte(fanSpelling(t, keyFile)+"\n"))
			if status, got, errOut = decryptAgeTo(t, body, "-i", keys[0], "-i", fan); status != 0 || !bytes.Equal(got, payload) {
				t.Fatalf("%s, fanseal's spelling: status %d, stderr %q", suite, status, errOut)
			}
			// Someone else's key.
			status, got, errOut = decryptAgeTo(t, body, "-i", keys[0])
			if status != 1 || got != nil || !strings.Contains(errOut, "fanseal: error: age file: not a recipient") || !strings.Contains(errOut, keys[0]+":") {
				t.Fatalf("%s, not a recipient: status %d, output %v, stderr %q", suite, status, got != nil, errOut)
			}
		}
	}
	// Standard input to standard output.
	body := ageSeal(t, []byte("through pipes"), true, ageRecipientOf(t, ageKeyFiles["x25519"]))
	if got := mustRun(t, string(body), "decrypt", "-i", ageKeyFiles["x25519"]); got != "through pipes" {
		t.Fatalf("stdin to stdout: %q", got)
	}
}

// fanSpelling returns fanseal's spelling of the identity in an age-keygen
// identity file: the library reads age's form and writes its own.
func fanSpelling(t *testing.T, ageFile string) string {
	t.Helper()
	id, err := fanseal.ParseIdentity(secretLine(t, ageFile))
	if err != nil {
		t.Fatal(err)
	}
	if s := id.String(); strings.HasPrefix(s, "FANSEAL_SECRET_") {
		return s
	}
	t.Fatalf("fanseal spells the identity of %s in age's form", ageFile)
	return ""
}

// TestDecryptAgeFileFailsWithoutOutput: a truncated, tampered with or
// corrupted age file is refused, and no output file appears, though age
// would have given the chunks before the fault.
func TestDecryptAgeFileFailsWithoutOutput(t *testing.T) {
	key := ageKeyFiles["x25519"]
	payload := bytes.Repeat([]byte{7}, 3*64<<10+100)
	body := ageSeal(t, payload, false, ageRecipientOf(t, key))
	flip := func(i int) []byte { b := bytes.Clone(body); b[i] ^= 1; return b }
	for name, bad := range map[string][]byte{
		"truncated in the last chunk": body[:len(body)-10],
		"truncated at a chunk end":    body[:len(body)-(100+16)],
		"last chunk tampered":         flip(len(body) - 1),
		"header MAC tampered":         flip(bytes.Index(body, []byte("\n--- ")) + 6),
		"trailing data":               append(bytes.Clone(body), 0),
		"armor cut":                   bytes.TrimSuffix(ageSeal(t, payload, true, ageRecipientOf(t, key)), []byte("-----END AGE ENCRYPTED FILE-----\n")),
	} {
		status, got, errOut := decryptAgeTo(t, bad, "-i", key)
		if status != 1 || got != nil || !strings.HasPrefix(errOut, "fanseal: error: age file: ") {
			t.Errorf("%s: status %d, output file %v, stderr %q", name, status, got != nil, errOut)
		}
	}
}

// TestDecryptAgeSSH: age files for ssh-ed25519 and passphrase-protected
// SSH keys open with the OpenSSH private key; the passphrase is asked
// only when the file holds a stanza for the key.
func TestDecryptAgeSSH(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := agessh.NewEd25519Recipient(sshPub)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plainPEM, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	lockedPEM, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("open sesame"))
	if err != nil {
		t.Fatal(err)
	}
	plain := writeFile(t, dir, "id_ed25519", pem.EncodeToMemory(plainPEM))
	locked := writeFile(t, dir, "id_locked", pem.EncodeToMemory(lockedPEM))
	body := ageSeal(t, []byte("to my ssh key"), false, rec)
	if status, got, errOut := decryptAgeTo(t, body, "-i", plain); status != 0 || string(got) != "to my ssh key" {
		t.Fatalf("ssh-ed25519: status %d, stderr %q", status, errOut)
	}
	asked := withPassphrase(t, "open sesame")
	if status, got, errOut := decryptAgeTo(t, body, "-i", locked); status != 0 || string(got) != "to my ssh key" || *asked != 1 {
		t.Fatalf("passphrase-protected ssh-ed25519: status %d, asked %d, stderr %q", status, *asked, errOut)
	}
	other := ageSeal(t, []byte("x"), false, ageRecipientOf(t, ageKeyFiles["x25519"]))
	*asked = 0
	if status, _, _ := decryptAgeTo(t, other, "-i", locked); status != 1 || *asked != 0 {
		t.Fatalf("a file not for the key: status %d, passphrase asked %d times", status, *asked)
	}
	withPassphrase(t, "wrong")
	if status, got, _ := decryptAgeTo(t, body, "-i", locked); status != 1 || got != nil {
		t.Fatalf("wrong passphrase: status %d, output %v", status, got != nil)
	}
}

// TestDecryptAgePassphrase: an age file sealed to a passphrase opens
// without -i, the passphrase asked on the terminal; a wrong one and a
// work factor over the bound are refused, with no output.
func TestDecryptAgePassphrase(t *testing.T) {
	r, err := age.NewScryptRecipient("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	r.SetWorkFactor(10)
	body := ageSeal(t, []byte("sealed to a passphrase"), true, r)
	asked := withPassphrase(t, "correct horse")
	if status, got, errOut := decryptAgeTo(t, body); status != 0 || string(got) != "sealed to a passphrase" || *asked != 1 {
		t.Fatalf("status %d, asked %d, stderr %q", status, *asked, errOut)
	}
	withPassphrase(t, "wrong")
	if status, got, errOut := decryptAgeTo(t, body); status != 1 || got != nil || !strings.Contains(errOut, "incorrect passphrase") {
		t.Fatalf("wrong passphrase: status %d, stderr %q", status, errOut)
	}
	// A work factor over the bound, written into the stanza (sealing at
	// 2^23 would take half a minute): refused before any scrypt work.
	heavy := bytes.Replace(ageSeal(t, []byte("x"), false, r), []byte(" 10\n"), []byte(" 23\n"), 1)
	withPassphrase(t, "correct horse")
	if status, _, errOut := decryptAgeTo(t, heavy); status != 1 || !strings.Contains(errOut, "work factor too large") {
		t.Fatalf("work factor over the bound: status %d, stderr %q", status, errOut)
	}
	// Without -i, a fanseal envelope still needs an identity.
	mustFail(t, "", "at least one -i", "decrypt")
}

// TestWorkFactorBeforePassphrase: an age file, and an identity file that
// age encrypted, whose scrypt work factor is over the bound or not age's
// decimal are refused before the passphrase is asked.
func TestWorkFactorBeforePassphrase(t *testing.T) {
	r, err := age.NewScryptRecipient("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	r.SetWorkFactor(10)
	sealed := ageSeal(t, []byte("x"), false, r)
	env := mustRun(t, "a fanseal envelope", "encrypt", "-r", agePublicKey(t, ageKeyFiles["x25519"]))
	for factor, want := range map[string]string{"23": "work factor too large", "99999999999999999999": "work factor too large", "010": "invalid work factor", "1e1": "invalid work factor"} {
		body := bytes.Replace(sealed, []byte(" 10\n"), []byte(" "+factor+"\n"), 1)
		asked := withPassphrase(t, "correct horse")
		if status, _, errOut := decryptAgeTo(t, body); status != 1 || !strings.Contains(errOut, want) || *asked != 0 {
			t.Errorf("age file, work factor %s: status %d, asked %d, stderr %q", factor, status, *asked, errOut)
		}
		locked := writeFile(t, t.TempDir(), "keys.txt.age", body)
		if status, _, errOut := decryptAgeTo(t, sealed, "-i", locked); status != 1 || !strings.Contains(errOut, want) || *asked != 0 {
			t.Errorf("age-encrypted identity file, work factor %s, for an age file: status %d, asked %d, stderr %q", factor, status, *asked, errOut)
		}
		if status, _, errOut := cli(t, env, "decrypt", "-i", locked); status != 1 || !strings.Contains(errOut, want) || *asked != 0 {
			t.Errorf("age-encrypted identity file, work factor %s, for an envelope: status %d, asked %d, stderr %q", factor, status, *asked, errOut)
		}
	}
}

// lockedIdentity returns a new file holding the identity file key as age
// encrypts one with the passphrase "identity pass" (armored or not).
func lockedIdentity(t *testing.T, key string, armored bool) string {
	t.Helper()
	keyText, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	r, err := age.NewScryptRecipient("identity pass")
	if err != nil {
		t.Fatal(err)
	}
	r.SetWorkFactor(10)
	return writeFile(t, t.TempDir(), "keys.txt.age", ageSeal(t, keyText, armored, r))
}

// TestDecryptAgeEncryptedIdentity: an identity file that age encrypted
// with a passphrase is read after asking it.
func TestDecryptAgeEncryptedIdentity(t *testing.T) {
	key := ageKeyFiles["mlkem768x25519"]
	lockedKey := lockedIdentity(t, key, true)
	body := ageSeal(t, []byte("for the post-quantum key"), false, ageRecipientOf(t, key))
	asked := withPassphrase(t, "identity pass")
	if status, got, errOut := decryptAgeTo(t, body, "-i", lockedKey); status != 0 || string(got) != "for the post-quantum key" || *asked != 1 {
		t.Fatalf("status %d, asked %d, stderr %q", status, *asked, errOut)
	}
}

// TestEncryptedIdentityForFansealEnvelope: an identity file that age
// encrypted with a passphrase opens fanseal's own envelopes too, after
// asking it; a wrong passphrase is refused.
func TestEncryptedIdentityForFansealEnvelope(t *testing.T) {
	key := ageKeyFiles["x25519"]
	locked := lockedIdentity(t, key, false)
	env := mustRun(t, "a fanseal envelope", "encrypt", "-r", agePublicKey(t, key))
	asked := withPassphrase(t, "identity pass")
	if got := mustRun(t, env, "decrypt", "-i", locked); got != "a fanseal envelope" || *asked != 1 {
		t.Fatalf("%q, asked %d", got, *asked)
	}
	withPassphrase(t, "wrong")
	mustFail(t, env, "incorrect passphrase", "decrypt", "-i", locked)
}

// TestDecryptEmpty: an empty input is said to be empty, for fanseal and
// age alike.
func TestDecryptEmpty(t *testing.T) {
	dir, keys, _ := setup(t, "x25519", 1)
	empty := writeFile(t, dir, "empty", nil)
	mustFail(t, "", "the input is empty", "decrypt", "-i", keys[0], empty)
	mustFail(t, "", "the input is empty", "decrypt", "-i", keys[0])
	mustFail(t, "", "the input is empty", "inspect", empty)
}

// TestDescribeAgeErrors: the errors of age files match the library's
// error classes.
func TestDescribeAgeErrors(t *testing.T) {
	err := describeAge(&age.NoIdentityMatchError{StanzaTypes: []string{"X25519", "X25519", "ssh-ed25519"}}, nil)
	if !strings.Contains(err.Error(), "2 X25519, 1 ssh-ed25519") || !errors.Is(err, errAge) {
		t.Fatalf("%v", err)
	}
}

// TestInspectSaysOneChunk: inspect counts "1 chunk", not "1 chunks", in
// fanseal's envelopes and age's files.
func TestInspectSaysOneChunk(t *testing.T) {
	_, _, pubs := setup(t, "x25519", 1)
	env := mustRun(t, "small", "encrypt", "-r", pubs[0])
	file := ageSeal(t, []byte("small"), false, ageRecipientOf(t, ageKeyFiles["x25519"]))
	for name, body := range map[string]string{"fanseal": env, "age": string(file)} {
		if out := mustRun(t, body, "inspect"); !strings.Contains(out, "5 bytes in 1 chunk (") {
			t.Fatalf("%s: %q", name, out)
		}
	}
}

// TestAgeIdentityErrorsHideSecrets: a damaged secret key in an identity
// file given for an age file is refused with its file and line, and the
// error quotes none of it.
func TestAgeIdentityErrorsHideSecrets(t *testing.T) {
	secret := secretLine(t, ageKeyFiles["x25519"])
	damaged := secret[:30] + strings.Repeat("Q", 10) + secret[40:]
	dir := t.TempDir()
	keys := writeFile(t, dir, "keys.txt", []byte("# mine\n"+damaged+"\n"))
	body := ageSeal(t, []byte("x"), false, ageRecipientOf(t, ageKeyFiles["x25519"]))
	status, _, errOut := decryptAgeTo(t, body, "-i", keys)
	if status != 1 || !strings.Contains(errOut, keys+":2") {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	for i := 0; i+12 <= len(damaged); i += 6 {
		if strings.Contains(errOut, damaged[i:i+12]) {
			t.Fatalf("the error quotes the secret key: %q", errOut)
		}
	}
}

// TestDecryptAgeWithoutIdentities: an age file not sealed to a passphrase,
// decrypted with no -i, says that identities are required and how to give
// them, as age does, not that none of them opens it.
func TestDecryptAgeWithoutIdentities(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "plain", []byte("x"))
	file := filepath.Join(dir, "notes.age")
	mustRun(t, "", "encrypt", "--age", "-r", agePublicKey(t, ageKeyFiles["x25519"]), "-o", file, in)
	msg := execFails(t, "", []string{"decrypt", file}, "identities are required", "-i PATH, or -j PLUGIN")
	if strings.Contains(msg, "none of the identities given") {
		t.Fatalf("decrypt without -i: %q", msg)
	}
}

// TestFansealEncryptedIdentityFile: an identity file that fanseal encrypt
// -p sealed (binary or armored) opens fanseal envelopes and age files, its
// passphrase asked once when needed; an identity file that is an envelope
// sealed to keys says what it needs.
func TestFansealEncryptedIdentityFile(t *testing.T) {
	fastScrypt(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	in := writeFile(t, dir, "plain", []byte("behind a sealed key"))
	env := filepath.Join(dir, "env.fsl")
	mustRun(t, "", "encrypt", "-r", pubs[0], "-o", env, in)
	ageFile := filepath.Join(dir, "notes.age")
	mustRun(t, "", "encrypt", "--age", "-r", pubs[0], "-o", ageFile, in)
	for _, armored := range []bool{false, true} {
		sealed := filepath.Join(dir, fmt.Sprintf("key-%v.fsl", armored))
		args := []string{"encrypt", "-p", "-o", sealed, keys[0]}
		if armored {
			args = []string{"encrypt", "-p", "-a", "-o", sealed, keys[0]}
		}
		withPassphrases(t, "long enough", "long enough")
		mustRun(t, "", args...)
		for _, target := range []string{env, ageFile} {
			prompts := withPassphrases(t, "long enough")
			if got := mustRun(t, "", "decrypt", "-i", sealed, target); got != "behind a sealed key" || len(*prompts) != 1 || !strings.Contains((*prompts)[0], "identity file") {
				t.Fatalf("armored=%v %s: %q, prompts %q", armored, target, got, *prompts)
			}
		}
	}
	notPass := filepath.Join(dir, "key-to-keys.fsl")
	mustRun(t, "", "encrypt", "-r", pubs[0], "-o", notPass, keys[0])
	mustFail(t, "", "not one sealed to a passphrase", "decrypt", "-i", notPass, env)
}

// TestEncryptedIdentityFileLazy: for fanseal envelopes, an encrypted
// identity file (age's or fanseal's) is unlocked only when the identities
// given beside it do not open the envelope, in order and once each: its
// passphrase is not asked when another key opens it, and is asked once
// when only its key does; a damaged one is refused when it is read.
func TestEncryptedIdentityFileLazy(t *testing.T) {
	fastScrypt(t)
	dir, keys, pubs := setup(t, "x25519", 2)
	in := writeFile(t, dir, "plain", []byte("lazily"))
	withPassphrases(t, "long enough", "long enough", "long enough", "long enough")
	sealedAge := filepath.Join(dir, "b.key.age")
	mustRun(t, "", "encrypt", "--age", "-p", "-o", sealedAge, keys[1])
	sealedFs := filepath.Join(dir, "b.key.fsl")
	mustRun(t, "", "encrypt", "-p", "-a", "-o", sealedFs, keys[1])
	forA := filepath.Join(dir, "a.fsl")
	mustRun(t, "", "encrypt", "-r", pubs[0], "-o", forA, in)
	forB := filepath.Join(dir, "b.fsl")
	mustRun(t, "", "encrypt", "-r", pubs[1], "-o", forB, in)
	for _, sealed := range []string{sealedAge, sealedFs} {
		withPassphrases(t) // any prompt fails the test
		if got := mustRun(t, "", "decrypt", "-i", keys[0], "-i", sealed, forA); got != "lazily" {
			t.Fatalf("%s beside the envelope's key: %q", sealed, got)
		}
		prompts := withPassphrases(t, "long enough")
		if got := mustRun(t, "", "decrypt", "-i", keys[0], "-i", sealed, forB); got != "lazily" || len(*prompts) != 1 {
			t.Fatalf("%s, whose key the envelope is for: %q, prompts %q", sealed, got, *prompts)
		}
		// Read from standard input, the envelope is read again after the
		// passphrase, from what was kept of it.
		prompts = withPassphrases(t, "long enough")
		if got := mustRun(t, string(mustRead(t, forB)), "decrypt", "-i", keys[0], "-i", sealed); got != "lazily" || len(*prompts) != 1 {
			t.Fatalf("%s, the envelope on standard input: %q, prompts %q", sealed, got, *prompts)
		}
	}
	damaged := writeFile(t, dir, "damaged.fsl", append([]byte(format.Magic), 1, 0))
	withPassphrases(t)
	mustFail(t, "", "decrypting the identity file", "decrypt", "-i", keys[0], "-i", damaged, forA)
}
