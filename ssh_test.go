package fanseal

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/pem"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/fanseal/fanseal/internal/format"
	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/ssh"
)

// sshKeyPair returns an SSH private key file (protected by passphrase if
// it is not empty) and its authorized_keys line, with a comment.
func sshKeyPair(t testing.TB, key any, passphrase string) (priv []byte, pub string) {
	t.Helper()
	var block *pem.Block
	var err error
	if passphrase == "" {
		block, err = ssh.MarshalPrivateKey(key, "test key")
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(key, "test key", []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))) + " alice@example.com"
	return pem.EncodeToMemory(block), line
}

var sshCache struct {
	sync.Mutex
	ids []*Identity
}

// sshIdentities returns n ssh-ed25519 identities and their recipients,
// parsed from their text forms.
func sshIdentities(t testing.TB, n int) ([]*Identity, []*Recipient) {
	t.Helper()
	sshCache.Lock()
	defer sshCache.Unlock()
	for len(sshCache.ids) < n {
		_, k, _ := ed25519.GenerateKey(rand.Reader)
		priv, pub := sshKeyPair(t, k, "")
		id, err := ParseSSHIdentity(priv)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ParseRecipient(pub)
		if err != nil {
			t.Fatal(err)
		}
		if !r.equal(id.Recipient()) {
			t.Fatal("the identity's recipient is not the public key line's")
		}
		sshCache.ids = append(sshCache.ids, id)
	}
	ids := sshCache.ids[:n:n]
	rs := make([]*Recipient, n)
	for i, id := range ids {
		rs[i] = id.Recipient()
	}
	return ids, rs
}

func TestSSHEd25519RoundTrip(t *testing.T) {
	ids, rs := sshIdentities(t, 3)
	_, xs := identities(t, X25519, 2)
	msg := []byte("to ssh keys")
	for _, st := range Strategies {
		if st == Channel || st == Precomputed {
			continue
		}
		for _, anon := range []bool{false, true} {
			env := mustSeal(t, &Sealer{Identified: true, Strategy: st, Anonymous: anon}, msg, append(append([]*Recipient{}, xs...), rs...)...)
			for _, id := range ids {
				got, err := OpenBytes(env, id)
				if err != nil || !bytes.Equal(got, msg) {
					t.Fatalf("%s anonymous=%v: %q, %v", st, anon, got, err)
				}
			}
		}
	}
}

// The stanza of an ssh-ed25519 recipient is an X25519 HPKE stanza that
// opens with crypto/hpke given the scalar derived as FORMAT.md says, from
// the seed, and the info that binds it to the SSH key.
func TestSSHEd25519StanzaIsHPKE(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	priv, pub := sshKeyPair(t, k, "")
	r, err := ParseRecipient(pub)
	if err != nil {
		t.Fatal(err)
	}
	env := mustSeal(t, &Sealer{Identified: true, Strategy: Sequential}, []byte("x"), r)
	h, _, err := format.ParseHeader(env)
	if err != nil {
		t.Fatal(err)
	}
	var st *format.HPKEStanza
	for s := range h.Stanzas() {
		st, err = format.ParseHPKE(s.Body, false)
		if err != nil {
			t.Fatal(err)
		}
	}
	if st.KEM != format.KEMX25519 {
		t.Fatalf("suite 0x%04x", st.KEM)
	}
	sshPub, _, _, _, _ := ssh.ParseAuthorizedKey([]byte(pub))
	wire := sshPub.Marshal()
	idSum := sha256.Sum256(append([]byte("fanseal/v1 ssh key id"), wire...))
	if !bytes.Equal(st.KeyID, idSum[:8]) {
		t.Fatalf("key id %x, want %x", st.KeyID, idSum[:8])
	}
	seed := sha512.Sum512(k.Seed())
	sk := seed[:32]
	kem := stdhpke.DHKEM(ecdhX25519())
	skey, err := kem.NewPrivateKey(clampCopy(sk))
	if err != nil {
		t.Fatal(err)
	}
	// The public key is the Montgomery form of the Ed25519 key.
	u, _ := curve25519.X25519(clampCopy(sk), curve25519.Basepoint)
	if !bytes.Equal(u, r.Bytes()) {
		t.Fatal("public key is not the scalar's X25519 public key")
	}
	keyHash := sha256.Sum256(wire)
	info := append([]byte("fanseal/v1 ssh-ed25519"), keyHash[:]...)
	rcpt, err := stdhpke.NewRecipient(st.Enc, skey, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), info)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rcpt.Open(h.PreambleBytes(), st.CT); err != nil {
		t.Fatalf("crypto/hpke does not open the ssh-ed25519 stanza: %v", err)
	}
	// The plain X25519 identity of the same scalar is another key: its
	// identifier and info differ.
	plain, err := NewIdentity(X25519, sk)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Recipient().KeyID() == r.KeyID() {
		t.Fatal("the ssh-ed25519 key has the X25519 key's identifier")
	}
	if _, err := OpenBytes(env, plain); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("plain X25519 identity: %v", err)
	}
	anon := mustSeal(t, &Sealer{Identified: true, Anonymous: true}, []byte("x"), r)
	if _, err := OpenBytes(anon, plain); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("plain X25519 identity, anonymous: %v", err)
	}
	id, err := ParseSSHIdentity(priv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBytes(anon, id); err != nil {
		t.Fatal(err)
	}
}

func clampCopy(k []byte) []byte {
	c := bytes.Clone(k)
	clampX25519(c)
	return c
}

// Opening as the last of 100 ssh-ed25519 recipients costs one key
// agreement, as for any X25519 recipient.
func TestSSHEd25519OneAgreement(t *testing.T) {
	ids, rs := sshIdentities(t, 100)
	for _, st := range []Strategy{Sequential, SharedParallel} {
		env := mustSeal(t, &Sealer{Identified: true, Strategy: st}, []byte("m"), rs...)
		before := keyAgreements.Load()
		if _, err := OpenBytes(env, ids[99]); err != nil {
			t.Fatal(err)
		}
		if n := keyAgreements.Load() - before; n != 1 {
			t.Fatalf("%s: opening as the last of 100 took %d key agreements", st, n)
		}
	}
}

func TestSSHPassphraseProtected(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	priv, pub := sshKeyPair(t, k, "hunter2")
	if _, err := ParseSSHIdentity(priv); !errors.Is(err, ErrSSHPassphrase) {
		t.Fatalf("protected key without its passphrase: %v", err)
	}
	if _, err := ParseSSHIdentityWithPassphrase(priv, []byte("wrong")); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	id, err := ParseSSHIdentityWithPassphrase(priv, []byte("hunter2"))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := ParseRecipient(pub)
	env := mustSeal(t, &Sealer{Identified: true}, []byte("m"), r)
	if _, err := OpenBytes(env, id); err != nil {
		t.Fatal(err)
	}
}

func TestSSHECDSAP256(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	priv, pub := sshKeyPair(t, k, "")
	r, err := ParseRecipient(pub)
	if err != nil {
		t.Fatal(err)
	}
	if r.Suite() != P256 || r.Type() != "ecdsa-sha2-nistp256" {
		t.Fatalf("suite %s, type %s", r.Suite(), r.Type())
	}
	id, err := ParseSSHIdentity(priv)
	if err != nil {
		t.Fatal(err)
	}
	env := mustSeal(t, &Sealer{Identified: true}, []byte("m"), r)
	if _, err := OpenBytes(env, id); err != nil {
		t.Fatal(err)
	}
	k384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	_, pub384 := sshKeyPair(t, k384, "")
	var u *UnsupportedKeyError
	if _, err := ParseRecipient(pub384); !errors.As(err, &u) || !strings.Contains(err.Error(), "P-384") {
		t.Fatalf("ecdsa-sha2-nistp384: %v", err)
	}
}

func TestSSHUnsupportedTypes(t *testing.T) {
	for _, line := range []string{
		"sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIEX/dQ0v4127bEo8eeG1EV0ApO2lWbSnN6RWusn/NjqIAAAABHNzaDo= user@host",
		"sk-ecdsa-sha2-nistp256@openssh.com AAAA user",
		"ssh-dss AAAAB3NzaC1kc3MAAACBA user",
		"ssh-ed25519-cert-v01@openssh.com AAAA user",
	} {
		_, err := ParseRecipient(line)
		var u *UnsupportedKeyError
		if !errors.As(err, &u) {
			t.Errorf("%.30s: %v, want an UnsupportedKeyError", line, err)
		}
	}
	for _, line := range []string{
		`from="10.0.0.1" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl`,
		"ssh-ed25519 !!!",
		"ssh-ed25519",
		// The type word is not the key's type.
		"ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl",
	} {
		if _, err := ParseRecipient(line); err == nil {
			t.Errorf("%.40s: accepted", line)
		}
	}
	// A small-order Ed25519 point (the identity, y = 1) is refused.
	wire := ssh.Marshal(struct {
		Name string
		Key  []byte
	}{"ssh-ed25519", append([]byte{1}, make([]byte, 31)...)})
	line := "ssh-ed25519 " + b64(wire)
	if _, err := ParseRecipient(line); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("low-order ssh-ed25519 key: %v", err)
	}
}

// OpenAll opens envelopes for ssh-ed25519 identities as OpenBytes does,
// its agreements batched: one per envelope.
func TestSSHEd25519OpenAll(t *testing.T) {
	ids, rs := sshIdentities(t, 20)
	var envs [][]byte
	for i := range 16 {
		envs = append(envs, mustSeal(t, &Sealer{Identified: true, Strategy: SharedParallel, Anonymous: i%2 == 1}, []byte{byte(i)}, rs...))
	}
	out, errs := OpenAll(envs, ids[19])
	for i := range envs {
		if errs[i] != nil || !bytes.Equal(out[i], []byte{byte(i)}) {
			t.Fatalf("envelope %d: %v", i, errs[i])
		}
	}
}

// A non-canonical encoding of an Ed25519 point (y + p for a small y) is
// refused: the point's owner could not open what is sealed to it.
func TestSSHEd25519NonCanonical(t *testing.T) {
	// y = 2^255 - 19 + 3 = p + 3 encodes y = 3, a point, non-canonically.
	a := bytes.Repeat([]byte{0xff}, 32)
	a[0], a[31] = 0xed+3, 0x7f
	wire := ssh.Marshal(struct {
		Name string
		Key  []byte
	}{"ssh-ed25519", a})
	_, err := ParseRecipient("ssh-ed25519 " + b64(wire))
	if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "canonical") {
		t.Fatalf("non-canonical ssh-ed25519 key: %v", err)
	}
}

// A Precomputer's items for ssh-ed25519 recipients carry their own key
// schedule: the envelopes open.
func TestSSHEd25519Precomputed(t *testing.T) {
	ids, rs := sshIdentities(t, 3)
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 2}, rs...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.WaitFull(t.Context()); err != nil {
		t.Fatal(err)
	}
	env := mustSeal(t, &Sealer{Identified: true, Strategy: Precomputed, Precomputer: p}, []byte("pre"), rs...)
	for _, id := range ids {
		if got, err := OpenBytes(env, id); err != nil || string(got) != "pre" {
			t.Fatalf("%q, %v", got, err)
		}
	}
}

// An ssh-ed25519 key and the plain X25519 key of the same point are two
// recipients for a Precomputer: each gets items under its own key
// schedule, and each identity opens its own stanza.
func TestSSHEd25519PrecomputedBesidePlainKey(t *testing.T) {
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	priv, pub := sshKeyPair(t, k, "")
	sshID, _ := ParseSSHIdentity(priv)
	sshR, _ := ParseRecipient(pub)
	h := sha512.Sum512(k.Seed())
	plain, err := NewIdentity(X25519, h[:32])
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPrecomputer(PrecomputeOptions{PoolSize: 1}, sshR, plain.Recipient())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.WaitFull(t.Context()); err != nil {
		t.Fatal(err)
	}
	env := mustSeal(t, &Sealer{Identified: true, Strategy: Precomputed, Precomputer: p}, []byte("two forms"), sshR, plain.Recipient())
	for _, id := range []*Identity{sshID, plain} {
		if got, err := OpenBytes(env, id); err != nil || string(got) != "two forms" {
			t.Fatalf("%s: %q, %v", id.Recipient().Type(), got, err)
		}
	}
}

// A passphrase-protected SSH key asks its passphrase only when it first
// opens a stanza of its own key: not to seal to it, not for an envelope
// that is not for it, and once however many envelopes it opens; a wrong
// passphrase is the key's error, anonymous envelope or not.
func TestEncryptedSSHIdentityLazy(t *testing.T) {
	for _, key := range []any{ed25519Key(t), rsaTestKey(t)} {
		id, asked, priv := lockedIdentity(t, key)
		_, xs := identities(t, X25519, 1)
		other := mustSeal(t, &Sealer{Identified: true}, []byte("m"), xs[0])
		if _, err := OpenBytes(other, id); !errors.Is(err, ErrNotRecipient) || *asked != 0 {
			t.Fatalf("%T: not for it: %v, asked %d", key, err, *asked)
		}
		for _, anon := range []bool{false, true, false} {
			env := mustSeal(t, &Sealer{Identified: true, Anonymous: anon}, []byte("m"), id.Recipient(), xs[0])
			if got, err := OpenBytes(env, id); err != nil || string(got) != "m" {
				t.Fatalf("%T: %q, %v", key, got, err)
			}
		}
		if *asked != 1 {
			t.Fatalf("%T: asked %d times", key, *asked)
		}
		wrong, _ := NewEncryptedSSHIdentity(priv, func() ([]byte, error) { return []byte("wrong"), nil })
		for _, anon := range []bool{false, true} {
			env := mustSeal(t, &Sealer{Identified: true, Anonymous: anon}, []byte("m"), id.Recipient())
			if _, err := OpenBytes(env, wrong); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "passphrase is wrong") {
				t.Fatalf("%T anonymous=%v: wrong passphrase: %v", key, anon, err)
			}
		}
	}
}

// lockedIdentity returns an identity of key behind the passphrase "pw",
// the count of the times its passphrase was asked, and its PEM file.
func lockedIdentity(t testing.TB, key any) (*Identity, *int, []byte) {
	t.Helper()
	priv, _ := sshKeyPair(t, key, "pw")
	asked := new(int)
	id, err := NewEncryptedSSHIdentity(priv, func() ([]byte, error) { *asked++; return []byte("pw"), nil })
	if err != nil {
		t.Fatal(err)
	}
	return id, asked, priv
}

func ed25519Key(t testing.TB) ed25519.PrivateKey {
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	return k
}

func rsaTestKey(t testing.TB) any {
	id, _ := rsaIdentity(t)
	return id.rsa
}

// AgeString of an ssh-ed25519 or ssh-rsa key is the SSH text age itself
// takes (the line, the private key file), not the age1… of the X25519 key
// an ed25519 key converts to, which age would seal an X25519 stanza to;
// an ecdsa-sha2-nistp256 key, which age lacks, has none.
func TestSSHAgeString(t *testing.T) {
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, key := range map[string]any{"ed25519": ed25519Key(t), "rsa": rsaTestKey(t), "ecdsa": p256} {
		priv, line := sshKeyPair(t, key, "")
		id, err := ParseSSHIdentity(priv)
		if err != nil {
			t.Fatal(err)
		}
		pub, perr := id.Recipient().AgeString()
		secret, serr := id.AgeString()
		if name == "ecdsa" {
			if !errors.Is(perr, ErrUnsupported) || !errors.Is(serr, ErrUnsupported) {
				t.Fatalf("ecdsa: AgeString %q, %v and %v; want ErrUnsupported", pub, perr, serr)
			}
			continue
		}
		want := strings.Join(strings.Fields(line)[:2], " ")
		if perr != nil || pub != want {
			t.Fatalf("%s: Recipient.AgeString = %q, %v; want the line %q", name, pub, perr, want)
		}
		if serr != nil || secret != string(priv) {
			t.Fatalf("%s: Identity.AgeString = %.40q…, %v; want the private key file", name, secret, serr)
		}
	}
}
