package fanseal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/hmac"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/armor"
	"golang.org/x/crypto/scrypt"
)

// The tests of this file pin the sentences of docs/FORMAT.md that say
// which verdict a reader gives where several could apply. Each builds its
// input from the document alone (specEnvelope and the helpers below use
// only the standard library and the formulas of FORMAT.md), and asserts
// the verdict with the exported sentinels.

// specEnvelope is an envelope under construction, from FORMAT.md: the
// preamble (AES-256-GCM, a random nonce), the stanzas a test appends, the
// header MAC under a random file key, and the STREAM payload.
type specEnvelope struct {
	nonce   []byte
	fileKey []byte
	raw     []byte // the preamble and the stanzas appended so far
}

func newSpecEnvelope(flags byte, count int) *specEnvelope {
	e := &specEnvelope{nonce: randomBytes(16), fileKey: randomBytes(32)}
	e.raw = append([]byte("FANSEAL"), 1, flags, 0x00, 0x02)
	e.raw = append(e.raw, e.nonce...)
	e.raw = binary.BigEndian.AppendUint16(e.raw, uint16(count))
	return e
}

func (e *specEnvelope) preamble() []byte { return e.raw[:29:29] }

// stanza appends a stanza: type, 2-byte length, body.
func (e *specEnvelope) stanza(typ byte, body []byte) *specEnvelope {
	e.raw = append(e.raw, typ)
	e.raw = binary.BigEndian.AppendUint16(e.raw, uint16(len(body)))
	e.raw = append(e.raw, body...)
	return e
}

// header returns the header and its MAC.
func (e *specEnvelope) header() []byte {
	m := hmac.New(sha256.New, specHKDF(e.fileKey, e.nonce, "fanseal/v1 header"))
	m.Write(e.raw)
	return m.Sum(bytes.Clone(e.raw))
}

// seal returns the envelope of payload: header, MAC and chunks.
func (e *specEnvelope) seal(payload []byte) []byte {
	out := e.header()
	for i := 0; ; i++ {
		n := min(len(payload), 65536)
		last := n == len(payload)
		out = e.chunk(out, i, last, payload[:n])
		payload = payload[n:]
		if last {
			return out
		}
	}
}

// chunk appends payload chunk i: AEAD-Seal(payload_key, I2OSP(i, 11) ||
// flag, plaintext, "").
func (e *specEnvelope) chunk(dst []byte, i int, last bool, pt []byte) []byte {
	nonce := make([]byte, 12)
	binary.BigEndian.PutUint64(nonce[3:11], uint64(i))
	if last {
		nonce[11] = 1
	}
	return specGCM(specHKDF(e.fileKey, e.nonce, "fanseal/v1 payload")).Seal(dst, nonce, pt, nil)
}

// x25519 returns a type 0x01 stanza body sealing fileKey to the X25519
// public key pk: suite, key identifier (none when anonymous), enc, ct.
func (e *specEnvelope) x25519(t *testing.T, pk []byte, anon bool, fileKey []byte) []byte {
	t.Helper()
	enc, s := specSender(t, pk)
	ct, err := s.Seal(e.preamble(), fileKey)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte{0x00, 0x20}
	if !anon {
		b = append(b, specKeyID(0x0020, pk)...)
	}
	return append(append(b, enc...), ct...)
}

// x25519Private returns the type 0x02 and 0x03 stanza bodies of a private
// envelope with one X25519 recipient pk: the ephemeral key, then the
// suite, the tag Export("fanseal/v1 tag" || preamble, 8) and ct.
func (e *specEnvelope) x25519Private(t *testing.T, pk []byte) (eph, shared []byte) {
	t.Helper()
	enc, s := specSender(t, pk)
	tag, err := s.Export("fanseal/v1 tag"+string(e.preamble()), 8)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := s.Seal(e.preamble(), e.fileKey)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{0x00, 0x20}, enc...), append(append([]byte{0x00, 0x20}, tag...), ct...)
}

func specSender(t *testing.T, pk []byte) ([]byte, *stdhpke.Sender) {
	t.Helper()
	pub, err := ecdh.X25519().NewPublicKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	hpk, err := stdhpke.NewDHKEMPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	enc, s, err := stdhpke.NewSender(hpk, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), []byte("fanseal/v1 file key"))
	if err != nil {
		t.Fatal(err)
	}
	return enc, s
}

// age returns a type 0x08 stanza body: the age stanza of words and body,
// then fileKey sealed under the key that secret derives for it.
func (e *specEnvelope) age(secret, fileKey []byte, body []byte, words ...string) []byte {
	enc := []byte{byte(len(words))}
	for _, w := range words {
		enc = append(append(enc, byte(len(w))), w...)
	}
	enc = binary.BigEndian.AppendUint16(enc, uint16(len(body)))
	enc = append(enc, body...)
	h := sha256.Sum256(enc)
	key := specHKDF(secret, e.nonce, "fanseal/v1 age stanza"+string(h[:]))
	return specGCM(key).Seal(enc, make([]byte, 12), fileKey, e.preamble())
}

// scrypt returns a type 0x07 stanza body for passphrase at work factor
// 2^logN.
func (e *specEnvelope) scrypt(t *testing.T, passphrase string, logN int) []byte {
	t.Helper()
	salt := randomBytes(16)
	key, err := scrypt.Key([]byte(passphrase), append([]byte("fanseal/v1 scrypt"), salt...), 1<<logN, 8, 1, 32)
	if err != nil {
		t.Fatal(err)
	}
	b := append(salt, byte(logN))
	return specGCM(key).Seal(b, make([]byte, 12), e.fileKey, e.preamble())
}

func specHKDF(ikm, salt []byte, info string) []byte {
	k, err := hkdf.Key(sha256.New, ikm, salt, info, 32)
	if err != nil {
		panic(err)
	}
	return k
}

func specGCM(key []byte) cipher.AEAD {
	b, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return a
}

// specKeyID is SHA-256("fanseal/v1 key id" || I2OSP(kem, 2) || pk)[0:8].
func specKeyID(kem uint16, pk []byte) []byte {
	h := sha256.New()
	h.Write([]byte("fanseal/v1 key id"))
	h.Write(binary.BigEndian.AppendUint16(nil, kem))
	h.Write(pk)
	return h.Sum(nil)[:8]
}

// specSSHKeyID is SHA-256("fanseal/v1 ssh key id" || ssh_key)[0:8].
func specSSHKeyID(sshKey []byte) []byte {
	h := sha256.Sum256(append([]byte("fanseal/v1 ssh key id"), sshKey...))
	return h[:8]
}

// specString is an SSH string (RFC 4251): a 4-byte length and the bytes.
func specString(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// specUnwrapper is an age identity for these tests: the age stanzas of
// type "spec" whose one argument is its name are its. It returns secret
// for the first of them, or err where err is set; for none, an error
// matching ErrNotRecipient, as SecretUnwrapper asks.
type specUnwrapper struct {
	name   string
	secret []byte
	err    error
}

func (u specUnwrapper) UnwrapSecret(sts []*AgeStanza) ([]byte, error) {
	for _, st := range sts {
		if st.Type == "spec" && len(st.Args) == 1 && st.Args[0] == u.name {
			if u.err != nil {
				return nil, u.err
			}
			return bytes.Clone(u.secret), nil
		}
	}
	return nil, ErrNotRecipient
}

func specX25519(t *testing.T) (*Identity, []byte) {
	t.Helper()
	id, err := GenerateIdentity(X25519)
	if err != nil {
		t.Fatal(err)
	}
	return id, id.Recipient().Bytes()
}

// wantErr fails unless err matches want (nil: no error).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Errorf("%s: %v, want success", what, err)
	case want != nil && !errors.Is(err, want):
		t.Errorf("%s: %v, want %v", what, err, want)
	}
}

// Type 0x08: an age identity that finds none of its stanzas is
// not a recipient; one that returns a secret with which no type 0x08 ct
// opens is an authentication failure. Anonymous, identified or private.
func TestSpecAgeStanzaVerdicts(t *testing.T) {
	secret, other := randomBytes(16), randomBytes(16)
	for _, flags := range []byte{0x00, 0x01, 0x04} {
		for _, c := range []struct {
			name string
			// the secret the stanza's ct is sealed under
			sealed []byte
			u      specUnwrapper
			want   error
		}{
			{"the identity's stanza, its secret", secret, specUnwrapper{name: "me", secret: secret}, nil},
			{"no stanza of the identity's", secret, specUnwrapper{name: "stranger", secret: secret}, ErrNotRecipient},
			{"a secret that opens no ct", other, specUnwrapper{name: "me", secret: secret}, ErrAuthentication},
		} {
			e := newSpecEnvelope(flags, 1)
			e.stanza(0x08, e.age(c.sealed, e.fileKey, []byte("wrapped"), "spec", "me"))
			_, err := OpenBytes(e.seal([]byte("payload")), NewWrappedIdentity(c.u))
			wantErr(t, c.name, err, c.want)
		}
	}
}

// Type 0x08: an Unwrap that fails with an error other than not-recipient
// (age's X25519 identity does for a malformed X25519 stanza) is an
// authentication failure, not "not a recipient" and not malformed, unless
// another candidate opens.
func TestSpecAgeUnwrapError(t *testing.T) {
	secret := randomBytes(16)
	refusing := NewWrappedIdentity(specUnwrapper{name: "me", err: errors.New("invalid spec stanza")})
	for _, flags := range []byte{0x00, 0x01, 0x04} {
		e := newSpecEnvelope(flags, 1)
		e.stanza(0x08, e.age(secret, e.fileKey, nil, "spec", "me"))
		_, err := OpenBytes(e.seal([]byte("payload")), refusing)
		wantErr(t, "Unwrap fails", err, ErrAuthentication)
		if errors.Is(err, ErrNotRecipient) || errors.Is(err, ErrMalformed) {
			t.Errorf("Unwrap fails: %v is also not-recipient or malformed", err)
		}
		// Another identity that opens the envelope wins.
		good := NewWrappedIdentity(specUnwrapper{name: "me", secret: secret})
		if _, err := OpenBytes(e.seal([]byte("payload")), refusing, good); err != nil {
			t.Errorf("Unwrap fails beside an identity that opens: %v", err)
		}
	}
}

// Type 0x08: the secret is tried on the ct of every type 0x08 stanza, not
// only on the stanza the identity unwrapped; those that open must give
// one file key.
func TestSpecAgeStanzaEveryCT(t *testing.T) {
	secret := randomBytes(16)
	me := NewWrappedIdentity(specUnwrapper{name: "me", secret: secret})
	// The identity's age stanza carries a ct that its secret does not
	// open; another recipient's carries one that it does.
	e := newSpecEnvelope(0x00, 2)
	e.stanza(0x08, e.age(randomBytes(16), e.fileKey, nil, "spec", "me"))
	e.stanza(0x08, e.age(secret, e.fileKey, nil, "spec", "bob"))
	got, err := OpenBytes(e.seal([]byte("payload")), me)
	if err != nil || string(got) != "payload" {
		t.Errorf("the secret opens another stanza's ct: %q, %v", got, err)
	}
	// Two cts that the secret opens to different file keys.
	e = newSpecEnvelope(0x00, 2)
	e.stanza(0x08, e.age(secret, e.fileKey, nil, "spec", "me"))
	e.stanza(0x08, e.age(secret, randomBytes(32), nil, "spec", "bob"))
	_, err = OpenBytes(e.seal([]byte("payload")), me)
	wantErr(t, "two file keys", err, ErrAuthentication)
}

// Type 0x08: a reader refuses a secret of another length than 16 bytes
// (authentication), even where the ct would open under it.
func TestSpecAgeSecretLength(t *testing.T) {
	for _, n := range []int{0, 15, 17, 32} {
		secret := randomBytes(n)
		e := newSpecEnvelope(0x00, 1)
		e.stanza(0x08, e.age(secret, e.fileKey, nil, "spec", "me"))
		_, err := OpenBytes(e.seal([]byte("payload")), NewWrappedIdentity(specUnwrapper{name: "me", secret: secret}))
		wantErr(t, fmt.Sprintf("a secret of %d bytes", n), err, ErrAuthentication)
	}
}

// Rule 12: in an envelope that is not anonymous, rule 12 counts only the
// pairs of a type 0x08 stanza and an age identity, and in a private
// envelope the pairs of a type 0x06 stanza and an ssh-rsa identity too
// (8 each); the reader's type 0x01 and 0x03 stanzas count for nothing
// there. In an anonymous envelope every pair counts.
func TestSpecTrialsNotAnonymous(t *testing.T) {
	secret := randomBytes(16)
	x, pk := specX25519(t)
	stranger, _ := specX25519(t)
	age := NewWrappedIdentity(specUnwrapper{name: "me", secret: secret})
	const n = 3
	ageStanzas := func(e *specEnvelope) {
		e.stanza(0x08, e.age(secret, e.fileKey, nil, "spec", "me"))
		for range n - 1 {
			e.stanza(0x08, e.age(randomBytes(16), e.fileKey, nil, "spec", "other"))
		}
	}
	// Identified: a type 0x01 stanza for x, then n age stanzas.
	e := newSpecEnvelope(0x00, 1+n)
	e.stanza(0x01, e.x25519(t, pk, false, e.fileKey))
	ageStanzas(e)
	env := e.seal([]byte("payload"))
	for limit, want := range map[int]error{n: nil, n - 1: ErrAnonymousLimit} {
		_, err := (&Opener{MaxAnonymousTrials: limit}).OpenBytes(env, x, stranger, age)
		wantErr(t, fmt.Sprintf("identified, limit %d", limit), err, want)
	}
	// Private: the type 0x02 and 0x03 stanzas for x, then n age stanzas.
	e = newSpecEnvelope(0x04, 2+n)
	eph, shared := e.x25519Private(t, pk)
	e.stanza(0x02, eph).stanza(0x03, shared)
	ageStanzas(e)
	env = e.seal([]byte("payload"))
	for limit, want := range map[int]error{n: nil, n - 1: ErrAnonymousLimit} {
		_, err := (&Opener{MaxAnonymousTrials: limit}).OpenBytes(env, x, stranger, age)
		wantErr(t, fmt.Sprintf("private, limit %d", limit), err, want)
	}
	// Anonymous: the two X25519 identities' pairs count too (n + 2).
	e = newSpecEnvelope(0x01, 1+n)
	e.stanza(0x01, e.x25519(t, pk, true, e.fileKey))
	ageStanzas(e)
	env = e.seal([]byte("payload"))
	for limit, want := range map[int]error{n + 2: nil, n + 1: ErrAnonymousLimit} {
		_, err := (&Opener{MaxAnonymousTrials: limit}).OpenBytes(env, x, stranger, age)
		wantErr(t, fmt.Sprintf("anonymous, limit %d", limit), err, want)
	}
}

// Type 0x06 and rule 12: an ssh-rsa identity of modulus size k is a candidate for the
// type 0x06 stanzas of L = k only (anonymous or private), and rule 12
// counts 8 trials for each of those pairs and none for the others. With
// key identifiers, no type 0x06 pair counts.
func TestSpecTrialsRSA(t *testing.T) {
	id, _ := rsaIdentity(t)
	k := id.Recipient().rsaPub().Size() // 256
	build := func(flags byte) []byte {
		e := newSpecEnvelope(flags, 5)
		for _, size := range []int{k, 512, k, 512, 512} {
			b := randomBytes(size)
			if flags == 0 {
				b = append(randomBytes(8), b...)
			}
			e.stanza(0x06, b)
		}
		return e.seal([]byte("payload"))
	}
	for _, flags := range []byte{0x01, 0x04} {
		env := build(flags)
		_, err := (&Opener{MaxAnonymousTrials: 15}).OpenBytes(env, id)
		wantErr(t, "2 stanzas of L = k under a limit of 15", err, ErrAnonymousLimit)
		_, err = (&Opener{MaxAnonymousTrials: 16}).OpenBytes(env, id)
		if errors.Is(err, ErrAnonymousLimit) {
			t.Errorf("flags %#x: 2 stanzas of L = k under a limit of 16: %v", flags, err)
		}
	}
	_, err := (&Opener{MaxAnonymousTrials: 1}).OpenBytes(build(0x00), id)
	wantErr(t, "identified ssh-rsa stanzas", err, ErrNotRecipient)
}

// Rules 13 and 14: in an anonymous envelope, a type 0x01 or 0x03 (or 0x06)
// candidate that does not open says nothing, but a passphrase that opens
// no type 0x07 stanza, or an age identity whose secret opens no type 0x08
// ct, is an authentication failure; that failure is the verdict when no
// candidate opens, whatever the order of the stanzas.
func TestSpecAnonymousVerdicts(t *testing.T) {
	secret := randomBytes(16)
	x, _ := specX25519(t)
	_, strangerPK := specX25519(t)
	for _, c := range []struct {
		name string
		u    specUnwrapper
		want error
	}{
		{"secret opens no ct", specUnwrapper{name: "me", secret: secret}, ErrAuthentication},
		{"no age stanza of the identity's", specUnwrapper{name: "stranger", secret: secret}, ErrNotRecipient},
	} {
		for _, ageFirst := range []bool{false, true} {
			e := newSpecEnvelope(0x01, 2)
			hpke := e.x25519(t, strangerPK, true, e.fileKey)
			age := e.age(randomBytes(16), e.fileKey, nil, "spec", "me")
			if ageFirst {
				e.stanza(0x08, age).stanza(0x01, hpke)
			} else {
				e.stanza(0x01, hpke).stanza(0x08, age)
			}
			_, err := OpenBytes(e.seal([]byte("payload")), x, NewWrappedIdentity(c.u))
			wantErr(t, c.name, err, c.want)
		}
	}
	// A wrong passphrase, anonymous flag or not.
	for _, flags := range []byte{0x00, 0x01} {
		e := newSpecEnvelope(flags, 1)
		e.stanza(0x07, e.scrypt(t, "right", 2))
		_, err := OpenBytes(e.seal([]byte("payload")), NewScryptIdentity([]byte("wrong")))
		wantErr(t, "wrong passphrase", err, ErrAuthentication)
		got, err := OpenBytes(e.seal([]byte("payload")), NewScryptIdentity([]byte("right")))
		if err != nil || string(got) != "payload" {
			t.Errorf("right passphrase: %q, %v", got, err)
		}
	}
	// An anonymous ssh-rsa stanza of the identity's size that does not
	// decrypt: someone else's.
	id, _ := rsaIdentity(t)
	e := newSpecEnvelope(0x01, 1)
	e.stanza(0x06, randomBytes(id.Recipient().rsaPub().Size()))
	_, err := OpenBytes(e.seal([]byte("payload")), id)
	wantErr(t, "anonymous ssh-rsa stanza of another key", err, ErrNotRecipient)
}

// Type 0x06 and rule 13, private envelopes: a type 0x06 stanza of the identity's size
// that does not decrypt is tried as in an anonymous envelope, so it is
// someone else's (not a recipient), as it is in an anonymous one.
func TestSpecPrivateRSANotRecipient(t *testing.T) {
	id, _ := rsaIdentity(t)
	pub := &rsa.PublicKey{N: new(big.Int).Set(id.rsa.N), E: id.rsa.E}
	// Another key's stanza, of the same size: a real OAEP ciphertext
	// under a label that is not the reader's.
	e := newSpecEnvelope(0x04, 1)
	ct, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, pub, e.fileKey, []byte("another key's label"))
	if err != nil {
		t.Fatal(err)
	}
	e.stanza(0x06, ct)
	_, err = OpenBytes(e.seal([]byte("payload")), id)
	wantErr(t, "private ssh-rsa stanza of another key", err, ErrNotRecipient)
}

// specRSAWire is string("ssh-rsa") || mpint(e) || mpint(n) with the
// mpints given as their bytes.
func specRSAWire(e, n []byte) []byte {
	w := specString([]byte("ssh-rsa"))
	return append(append(w, specString(e)...), specString(n)...)
}

// minimal returns the minimal mpint bytes of a positive x (RFC 4251: a
// zero byte before a first byte with its top bit set).
func minimal(x *big.Int) []byte {
	b := x.Bytes()
	if len(b) > 0 && b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	return b
}

// SSH keys, ssh_key: ssh-rsa mpints. A reader takes mpints with unneeded leading
// zero bytes and re-encodes them minimally, so a key has one ssh_key, one
// identifier and one text; it refuses bytes after the key and a negative
// modulus or exponent.
func TestSpecSSHRSAEncoding(t *testing.T) {
	id, _ := rsaIdentity(t)
	e, n := big.NewInt(int64(id.rsa.E)), id.rsa.N
	canonical := specRSAWire(minimal(e), minimal(n))
	r, err := ParseRecipient("ssh-rsa " + base64.StdEncoding.EncodeToString(canonical))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.KeyID(); !bytes.Equal(got[:], specSSHKeyID(canonical)) {
		t.Fatalf("key identifier %x, want %x", got, specSSHKeyID(canonical))
	}
	for _, c := range []struct {
		name string
		wire []byte
	}{
		{"e with a leading zero byte", specRSAWire(append([]byte{0}, minimal(e)...), minimal(n))},
		{"n with two leading zero bytes", specRSAWire(minimal(e), append([]byte{0}, minimal(n)...))},
	} {
		o, err := ParseRecipient("ssh-rsa " + base64.StdEncoding.EncodeToString(c.wire))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if o.KeyID() != r.KeyID() || o.String() != r.String() || !o.equal(r) {
			t.Errorf("%s: another key identifier or text than the minimal encoding's", c.name)
		}
	}
	// -n in two's complement: 0xff, then 2^2048 - n.
	neg := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 8*257), n).Bytes()
	for _, c := range []struct {
		name string
		wire []byte
	}{
		{"a byte after n", append(bytes.Clone(canonical), 0)},
		{"a negative e", specRSAWire([]byte{0xfe, 0xff, 0xff}, minimal(n))},
		{"e of 2^24 + 1", specRSAWire([]byte{0x01, 0x00, 0x00, 0x01}, minimal(n))},
	} {
		_, err := ParseRecipient("ssh-rsa " + base64.StdEncoding.EncodeToString(c.wire))
		wantErr(t, c.name, err, ErrInvalidKey)
	}
	t.Run("negative n", func(t *testing.T) {
		_, err := ParseRecipient("ssh-rsa " + base64.StdEncoding.EncodeToString(specRSAWire(minimal(e), neg)))
		wantErr(t, "a negative n", err, ErrInvalidKey)
	})
}

// specECDSAWire is an ecdsa-sha2-nistp256 key with the point bytes q.
func specECDSAWire(q []byte) []byte {
	w := specString([]byte("ecdsa-sha2-nistp256"))
	return append(append(w, specString([]byte("nistp256"))...), specString(q)...)
}

func specECDSAPoint(t *testing.T) []byte {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	q, err := k.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Text forms, SSH keys: the SSH line. Its fields are separated by white space
// (Unicode's: one or more characters of it); the base64 field is
// standard base64 with its padding, whose unused low bits are ignored, so
// that it is the key's bytes that make the key.
func TestSpecSSHLine(t *testing.T) {
	wire := specECDSAWire(specECDSAPoint(t)) // 104 bytes: one "=", 2 unused bits
	b := base64.StdEncoding.EncodeToString(wire)
	r, err := ParseRecipient("ecdsa-sha2-nistp256 " + b)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"ecdsa-sha2-nistp256\t" + b,
		"ecdsa-sha2-nistp256 \t  " + b + " \t a comment",
		"ecdsa-sha2-nistp256\u00a0" + b + "\u2003comment",
		"ecdsa-sha2-nistp256 " + b[:len(b)-2] + string(b[len(b)-2]+1) + "=", // unused bits set
	} {
		o, err := ParseRecipient(line)
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if o.KeyID() != r.KeyID() || o.String() != r.String() {
			t.Errorf("%q: another key than %q", line, b)
		}
	}
	for _, line := range []string{
		"ecdsa-sha2-nistp256 " + strings.TrimRight(b, "="), // no padding
		"ecdsa-sha2-nistp256 " + b + "=",                   // too much
		"ecdsa-sha2-nistp256" + b,                          // no separator
		" ecdsa-sha2-nistp256 " + b,                        // white space first
		"ssh-ed25519 " + b,                                 // the type word is not the key's
	} {
		_, err := ParseRecipient(line)
		wantErr(t, line, err, ErrInvalidKey)
	}
	// A recipients file trims white space at both ends of the line.
	rs, err := ParseRecipients(strings.NewReader("  ecdsa-sha2-nistp256 " + b + "  \n"))
	if err != nil || len(rs) != 1 || rs[0].KeyID() != r.KeyID() {
		t.Errorf("recipients file: %v, %v", rs, err)
	}
}

// ecdsa-sha2-nistp256 keys: Q must be an uncompressed SEC 1 point of P-256: a compressed
// point, the point at infinity, a hybrid point or one off the curve is
// refused.
func TestSpecECDSAPoint(t *testing.T) {
	q := specECDSAPoint(t)
	if _, err := ParseRecipient("ecdsa-sha2-nistp256 " + base64.StdEncoding.EncodeToString(specECDSAWire(q))); err != nil {
		t.Fatal(err)
	}
	compressed := append([]byte{2 + q[64]&1}, q[1:33]...)
	hybrid := append([]byte{6 + q[64]&1}, q[1:]...)
	off := bytes.Clone(q)
	off[64] ^= 1
	for name, p := range map[string][]byte{"compressed": compressed, "infinity": {0}, "hybrid": hybrid, "off the curve": off} {
		_, err := ParseRecipient("ecdsa-sha2-nistp256 " + base64.StdEncoding.EncodeToString(specECDSAWire(p)))
		wantErr(t, name, err, ErrInvalidKey)
	}
	// A byte after the key's last field, for every SSH key type.
	_, rs := sshIdentities(t, 1)
	for typ, wire := range map[string][]byte{"ecdsa-sha2-nistp256": specECDSAWire(q), "ssh-ed25519": rs[0].ssh.wire} {
		_, err := ParseRecipient(typ + " " + base64.StdEncoding.EncodeToString(append(bytes.Clone(wire), 0)))
		wantErr(t, typ+" and a byte after it", err, ErrInvalidKey)
	}
}

// Rule 12: an identity given twice counts once for rule 12 when it is
// the same public key (suite, key bytes and, for an SSH key, the SSH key
// it binds), whatever value holds it; a passphrase or age identity is the
// same only as the same Identity value.
func TestSpecTrialsSameIdentity(t *testing.T) {
	x, pk := specX25519(t)
	again, err := ParseIdentity(x.String())
	if err != nil {
		t.Fatal(err)
	}
	e := newSpecEnvelope(0x01, 2)
	e.stanza(0x01, e.x25519(t, pk, true, e.fileKey)).stanza(0x01, e.x25519(t, pk, true, e.fileKey))
	env := e.seal([]byte("payload"))
	_, err = (&Opener{MaxAnonymousTrials: 2}).OpenBytes(env, x, again)
	wantErr(t, "one X25519 key given twice, 2 stanzas, limit 2", err, nil)
	kr, err := NewKeyring(again, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&Opener{Keyring: kr, MaxAnonymousTrials: 2}).OpenBytes(env, x)
	wantErr(t, "one X25519 key given and held by the keyring, limit 2", err, nil)
	// An ssh-ed25519 identity and the X25519 identity of its scalar are
	// two identities.
	sshIDs, _ := sshIdentities(t, 1)
	plain, err := NewIdentity(X25519, sshIDs[0].priv)
	if err != nil {
		t.Fatal(err)
	}
	e = newSpecEnvelope(0x01, 1)
	e.stanza(0x01, e.x25519(t, plain.Recipient().Bytes(), true, e.fileKey))
	_, err = (&Opener{MaxAnonymousTrials: 1}).OpenBytes(e.seal([]byte("payload")), sshIDs[0], plain)
	wantErr(t, "an ssh-ed25519 identity and the X25519 identity of its scalar, limit 1", err, ErrAnonymousLimit)

	e = newSpecEnvelope(0x01, 1)
	e.stanza(0x07, e.scrypt(t, "pass", 2))
	env = e.seal([]byte("payload"))
	p := NewScryptIdentity([]byte("pass"))
	_, err = (&Opener{MaxAnonymousTrials: 1}).OpenBytes(env, p, p)
	wantErr(t, "one passphrase identity given twice, limit 1", err, nil)
	_, err = (&Opener{MaxAnonymousTrials: 1}).OpenBytes(env, p, NewScryptIdentity([]byte("pass")))
	wantErr(t, "two passphrase identities of one passphrase, limit 1", err, ErrAnonymousLimit)

	secret := randomBytes(16)
	e = newSpecEnvelope(0x00, 1)
	e.stanza(0x08, e.age(secret, e.fileKey, nil, "spec", "me"))
	env = e.seal([]byte("payload"))
	u := specUnwrapper{name: "me", secret: secret}
	a := NewWrappedIdentity(u)
	_, err = (&Opener{MaxAnonymousTrials: 1}).OpenBytes(env, a, a)
	wantErr(t, "one age identity given twice, limit 1", err, nil)
	_, err = (&Opener{MaxAnonymousTrials: 1}).OpenBytes(env, a, NewWrappedIdentity(u))
	wantErr(t, "two age identities of one unwrapper, limit 1", err, ErrAnonymousLimit)
}

// Stanzas: the registry. Every type but 0x01 to 0x04 and 0x06 to 0x08,
// 0x05 (withdrawn) included, is unassigned: a reader skips such a stanza,
// whatever its body, in any envelope, and the MAC still covers it.
func TestSpecStanzaRegistry(t *testing.T) {
	x, pk := specX25519(t)
	unknown := []byte{0x00, 0x05, 0x09, 0x10, 0x7f, 0x80, 0xfe, 0xff}
	for _, flags := range []byte{0x00, 0x01, 0x04} {
		e := newSpecEnvelope(flags, len(unknown)+2)
		for _, typ := range unknown[:4] {
			// 0x05 with the body of an identified ssh-rsa stanza.
			e.stanza(typ, randomBytes(8+256))
		}
		switch flags {
		case 0x04:
			eph, shared := e.x25519Private(t, pk)
			e.stanza(0x02, eph).stanza(0x03, shared)
		default:
			e.stanza(0x01, e.x25519(t, pk, flags == 0x01, e.fileKey))
			e.stanza(0x05, nil)
		}
		for _, typ := range unknown[4:] {
			e.stanza(typ, randomBytes(65))
		}
		env := e.seal([]byte("payload"))
		got, err := OpenBytes(env, x)
		if err != nil || string(got) != "payload" {
			t.Errorf("flags %#x: %q, %v", flags, got, err)
		}
		// The MAC covers a skipped stanza.
		env[29+3] ^= 1
		_, err = OpenBytes(env, x)
		wantErr(t, "flipped unknown stanza", err, ErrAuthentication)
	}
}

// specArmor is the armored text of b: the begin line, standard base64 in
// lines of 64 characters, the end line, each line ended by eol.
func specArmor(b []byte, eol string) string {
	s := base64.StdEncoding.EncodeToString(b)
	out := "-----BEGIN FANSEAL ENVELOPE-----" + eol
	for len(s) > 64 {
		out += s[:64] + eol
		s = s[64:]
	}
	if s != "" {
		out += s + eol
	}
	return out + "-----END FANSEAL ENVELOPE-----" + eol
}

const (
	specBegin = "-----BEGIN FANSEAL ENVELOPE-----"
	specEnd   = "-----END FANSEAL ENVELOPE-----"
)

func dearmor(s string) ([]byte, error) { return io.ReadAll(armor.NewReader(strings.NewReader(s))) }

// Text forms, armored or binary: input of white space only. The armor decoder, told that its
// input is armor, finds it cut before its begin line (truncated); a
// reader that tells the forms apart takes it as binary (malformed by rule
// 1). Empty input is truncated for both.
func TestSpecArmorWhiteSpaceOnly(t *testing.T) {
	for _, in := range []string{" ", "  \n", "\n\n", "\r\n", "\t \r\n \n"} {
		_, err := dearmor(in)
		wantErr(t, "decoder, "+strconvQuote(in), err, ErrTruncated)
		if armor.IsArmored([]byte(in)) {
			t.Errorf("%q is taken as armor", in)
		}
		_, err = OpenBytes([]byte(in))
		wantErr(t, "binary, "+strconvQuote(in), err, ErrMalformed)
	}
	_, err := dearmor("")
	wantErr(t, "decoder, empty", err, ErrTruncated)
	_, err = OpenBytes(nil)
	wantErr(t, "binary, empty", err, ErrTruncated)
}

func strconvQuote(s string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(s)
}

// Text forms, armor cut short: a CR that ends the input is the CR of a line end cut before
// its LF: the line is judged without it.
func TestSpecArmorLoneCRAtEnd(t *testing.T) {
	full := base64.StdEncoding.EncodeToString(randomBytes(48))
	for in, want := range map[string]error{
		specBegin + "\r":                               ErrTruncated, // the begin line, cut
		specBegin + "\n" + full + "\r":                 ErrTruncated, // a full line, cut
		specBegin + "\nAAAA\r":                         ErrTruncated, // a short line, no end line
		specBegin + "\nAAA\r":                          ErrMalformed, // a line of 3
		specBegin + "\nAAAA\n" + specEnd + "\r":        nil,          // the end line
		specBegin + "\nAAAA\n" + specEnd[:10] + "\r":   ErrMalformed, // a part of the end line
		specBegin + "\nAAAA\n" + specEnd + "\r\r":      ErrMalformed, // the end line and a CR
		specBegin + "\nAA\rAA\n" + specEnd + "\n":      ErrMalformed, // a CR inside a line
		specBegin + "\r\r\nAAAA\n" + specEnd + "\n":    ErrMalformed, // CR CR LF
		specBegin + "\rAAAA\n" + specEnd + "\n":        ErrMalformed, // a CR as a line end
		specBegin + "\nAAAA\r\n" + specEnd + "\r\n":    nil,
		"\r\n" + specBegin + "\nAAAA\n" + specEnd + "": nil,
	} {
		_, err := dearmor(in)
		wantErr(t, strconvQuote(in), err, want)
	}
}

// Text forms, armor: the lines of white space only before the begin line, and the
// white space after the end line, may hold CRs anywhere (CR is white
// space); the begin line, the lines of base64 and the end line hold none
// but the one before their LF.
func TestSpecArmorCRInWhiteSpace(t *testing.T) {
	body := specArmor(randomBytes(100), "\n")
	for _, in := range []string{
		"\r \r\n" + body,
		" \r\t\r\r\n\r\n" + body,
		body + "\r",
		body + "\r\r\n \r \n\r",
		strings.TrimSuffix(body, "\n") + "\r\n\r\r",
	} {
		if !armor.IsArmored([]byte(in)) {
			t.Errorf("%q is not taken as armor", strconvQuote(in[:8]))
		}
		if _, err := dearmor(in); err != nil {
			t.Errorf("%q…: %v", strconvQuote(in[:8]), err)
		}
	}
	// A CR is no line end: before the begin line, it joins the begin line
	// to the white space before it.
	for _, in := range []string{"\r" + body, " \r" + body} {
		if armor.IsArmored([]byte(in)) {
			t.Errorf("%q is taken as armor", strconvQuote(in[:8]))
		}
		_, err := dearmor(in)
		wantErr(t, strconvQuote(in[:8]), err, ErrMalformed)
		_, err = OpenBytes([]byte(in))
		wantErr(t, strconvQuote(in[:8])+" as binary", err, ErrMalformed)
	}
}

// Text forms, armor: before the begin line a line counts its bytes
// less the one CR before its LF, plus the LF: a line of CR CR LF counts
// 2, so 513 of them (1 026) are too many, for the decoder as for the
// reader that tells the forms apart.
func TestSpecArmorCRCRLFLinesBefore(t *testing.T) {
	body := specArmor(randomBytes(100), "\n")
	ok := strings.Repeat("\r\r\n", 512) + body
	if !armor.IsArmored([]byte(ok)) {
		t.Error("512 lines of CR CR LF (1 024 counted) are not taken as armor")
	}
	if _, err := dearmor(ok); err != nil {
		t.Errorf("512 lines of CR CR LF: %v", err)
	}
	over := strings.Repeat("\r\r\n", 513) + body
	if armor.IsArmored([]byte(over)) {
		t.Error("513 lines of CR CR LF (1 026 counted) are taken as armor")
	}
	_, err := dearmor(over)
	wantErr(t, "513 lines of CR CR LF", err, ErrMalformed)
}

// Text forms, armor: after the end line's own line end, every byte counts (CR, LF,
// and each byte of a white space character of several bytes): at most
// 1 023.
func TestSpecArmorWhiteSpaceAfter(t *testing.T) {
	body := specArmor(randomBytes(100), "\n")
	crlf := strings.TrimSuffix(body, "\n") + "\r\n"
	for in, want := range map[string]error{
		body + strings.Repeat("\r\n", 511) + "\n":  nil,
		body + strings.Repeat("\r\n", 512):         ErrMalformed,
		crlf + strings.Repeat(" ", 1023):           nil,
		crlf + strings.Repeat(" ", 1024):           ErrMalformed,
		body + strings.Repeat("\u00a0", 511) + " ": nil,
		body + strings.Repeat("\u00a0", 512):       ErrMalformed,
	} {
		_, err := dearmor(in)
		wantErr(t, "white space after the end line", err, want)
	}
}

// Text forms, armor: a line of 64 characters that ends in "=" holds fewer than 48
// bytes: it is the last line, and the end line must follow it.
func TestSpecArmorPaddedFullLine(t *testing.T) {
	for _, n := range []int{46, 47} {
		b := randomBytes(n)
		line := base64.StdEncoding.EncodeToString(b)
		if len(line) != 64 {
			t.Fatal(len(line))
		}
		got, err := dearmor(specBegin + "\n" + line + "\n" + specEnd + "\n")
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%d bytes, then the end line: %v", n, err)
		}
		_, err = dearmor(specBegin + "\n" + line + "\nAAAA\n" + specEnd + "\n")
		wantErr(t, "a line after a padded full line", err, ErrMalformed)
	}
}

// What a reader checks, several faults: which fault wins. The preamble's are checked in a fixed order
// once it is whole (version, unknown flag bits, AEAD, bits 0 and 2
// together, count); then the header and its MAC must be there (truncated),
// before the framing of any stanza is checked (rules 4 to 11).
func TestSpecFaultOrder(t *testing.T) {
	preamble := func(version, flags byte, aead uint16, count int) []byte {
		b := append([]byte("FANSEAL"), version, flags)
		b = binary.BigEndian.AppendUint16(b, aead)
		b = append(b, make([]byte, 16)...)
		return binary.BigEndian.AppendUint16(b, uint16(count))
	}
	bad01 := []byte{0x01, 0x00, 0x02, 0x00, 0x20} // a type 0x01 X25519 stanza of 2 bytes (rule 4)
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"version 2, count 0", preamble(2, 0, 2, 0), ErrUnsupported},
		{"version 2, flags 0x05", preamble(2, 5, 2, 1), ErrUnsupported},
		{"flag bit 1, flags 0x05, AEAD 9, count 0", preamble(1, 7, 9, 0), ErrUnsupported},
		{"flags 0x05, AEAD 9", preamble(1, 5, 9, 1), ErrUnsupported},
		{"flags 0x05, count 0", preamble(1, 5, 2, 0), ErrMalformed},
		{"AEAD 9, count 0", preamble(1, 0, 9, 0), ErrUnsupported},
		{"version 2, preamble cut", preamble(2, 0, 2, 0)[:28], ErrTruncated},
		{"count 0, nothing after", preamble(1, 0, 2, 0), ErrMalformed},
		{"count 2, one stanza", append(preamble(1, 0, 2, 2), bad01...), ErrTruncated},
		{"a malformed stanza, the MAC cut", append(append(preamble(1, 0, 2, 1), bad01...), make([]byte, 31)...), ErrTruncated},
		{"a malformed stanza, the whole MAC", append(append(preamble(1, 0, 2, 1), bad01...), make([]byte, 32)...), ErrMalformed},
	} {
		_, err := OpenBytes(c.in)
		wantErr(t, c.name+" (OpenBytes)", err, c.want)
		_, err = Open(bytes.NewReader(c.in))
		wantErr(t, c.name+" (Open)", err, c.want)
	}
}

// channel returns a type 0x04 stanza body from the X25519 private key
// sk and public key senderPK of the sender (whose identifier is
// senderID) to the key pk: suite, the recipient's identifier, the
// sender's, epoch 0, salt, counter, ct.
func (e *specEnvelope) channel(t *testing.T, sk, senderPK, senderID, pk []byte) []byte {
	t.Helper()
	dh, _ := refX25519(t, sk, pk)
	salt := randomBytes(16)
	info := "fanseal/v1 channel" + "\x00\x20" + "\x00\x02" + "\x00\x00\x00\x00" + string(senderPK) + string(pk)
	ck, err := hkdf.Key(sha256.New, dh, salt, info, 32)
	if err != nil {
		t.Fatal(err)
	}
	const counter = 7
	nonce := binary.BigEndian.AppendUint64(make([]byte, 4), counter)
	b := append([]byte{0x00, 0x20}, specKeyID(0x0020, pk)...)
	b = append(b, senderID...)
	b = append(b, 0, 0, 0, 0)
	b = append(b, salt...)
	b = binary.BigEndian.AppendUint64(b, counter)
	return specGCM(ck).Seal(b, nonce, e.fileKey, e.preamble())
}

// Type 0x04: the sender's key identifier in a channel stanza is the key
// identifier of the sender's public key, as a stanza to it carries it
// (ssh_key_id for an ssh-ed25519 key); an all-zero X25519 output (a
// low-order peer key, which a reader refuses when it parses it) makes a
// writer refuse the recipient and the stanza fail to open for a reader
// (authentication).
func TestSpecChannelSender(t *testing.T) {
	sender, senderPK := specX25519(t)
	sshIDs, _ := sshIdentities(t, 1)
	sshSender := sshIDs[0]
	me, myPK := specX25519(t)
	kr, err := NewKeyring(me, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := kr.AddPeer(sender.Recipient(), sshSender.Recipient()); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]struct {
		sk, pk, id []byte
	}{
		"x25519":      {sender.priv, senderPK, specKeyID(0x0020, senderPK)},
		"ssh-ed25519": {sshSender.priv, sshSender.Recipient().Bytes(), specSSHKeyID(sshSender.Recipient().ssh.wire)},
	} {
		e := newSpecEnvelope(0x00, 1)
		e.stanza(0x04, e.channel(t, s.sk, s.pk, s.id, myPK))
		got, err := (&Opener{Keyring: kr}).OpenBytes(e.seal([]byte("payload")))
		if err != nil || string(got) != "payload" {
			t.Errorf("%s sender: %q, %v", name, got, err)
		}
	}
	// The point 0 as a peer key: refused when parsed.
	if _, err := NewRecipient(X25519, make([]byte, 32)); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("low-order X25519 key: %v", err)
	}
	// Held anyway (built around NewRecipient), it gives an all-zero X25519
	// output: a writer refuses it, and its channel stanza does not open.
	low := lowOrderRecipient(t)
	if err := kr.AddPeer(low); err != nil {
		t.Fatal(err)
	}
	_, err = (&Sealer{Strategy: Channel, Keyring: kr}).SealBytes([]byte("x"), low)
	wantErr(t, "sealing to a low-order peer", err, ErrInvalidKey)
	e := newSpecEnvelope(0x00, 1)
	b := append([]byte{0x00, 0x20}, specKeyID(0x0020, myPK)...)
	b = append(b, specKeyID(0x0020, make([]byte, 32))...)
	b = append(b, make([]byte, 4+16+8)...)
	e.stanza(0x04, append(b, randomBytes(48)...))
	_, err = (&Opener{Keyring: kr}).OpenBytes(e.seal([]byte("payload")))
	wantErr(t, "all-zero X25519 output", err, ErrAuthentication)
}

// Rule 15: an empty last chunk after full ones is malformed only once it
// opens; one that does not open is an authentication failure, as any
// chunk that does not open.
func TestSpecEmptyLastChunk(t *testing.T) {
	x, pk := specX25519(t)
	e := newSpecEnvelope(0x00, 1)
	e.stanza(0x01, e.x25519(t, pk, false, e.fileKey))
	full := randomBytes(65536)
	env := e.chunk(e.header(), 0, false, full)
	_, err := OpenBytes(e.chunk(bytes.Clone(env), 1, true, nil), x)
	wantErr(t, "an empty last chunk that opens", err, ErrMalformed)
	_, err = OpenBytes(append(bytes.Clone(env), randomBytes(16)...), x)
	wantErr(t, "an empty last chunk that does not open", err, ErrAuthentication)
	_, err = OpenBytes(e.chunk(bytes.Clone(env), 1, false, nil), x)
	wantErr(t, "an empty middle chunk at the end", err, ErrAuthentication)
	for _, f := range []func([]byte) ([]byte, error){
		func(b []byte) ([]byte, error) { return OpenBytes(b, x) },
		func(b []byte) ([]byte, error) {
			r, err := Open(bytes.NewReader(b), x)
			if err != nil {
				return nil, err
			}
			return io.ReadAll(r)
		},
	} {
		_, err := f(e.chunk(bytes.Clone(env), 1, true, nil))
		wantErr(t, "empty last chunk", err, ErrMalformed)
		_, err = f(append(bytes.Clone(env), randomBytes(16)...))
		wantErr(t, "empty last chunk, forged", err, ErrAuthentication)
	}
}
