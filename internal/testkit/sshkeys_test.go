package testkit

// SSH keys, passphrases and age stanzas of the generator (FORMAT.md, "SSH
// keys, passphrases and age stanzas"), from FORMAT.md and the specs it
// cites alone: the SSH wire format (RFC 4251 and 4253, RFC 8709 for
// ssh-ed25519, RFC 5656 for ecdsa-sha2-nistp256), OpenSSH's PROTOCOL.key
// for private key files, RFC 7748 and age's agessh for the Ed25519 to
// X25519 conversion, RFC 8017 for RSAES-OAEP (written out here), RFC 7914
// for scrypt (x/crypto/scrypt) and c2sp.org/age for age's X25519 stanza.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/scrypt"
	"golang.org/x/crypto/ssh"
)

// sshString is RFC 4251's string: a uint32 length and the bytes.
func sshString(b []byte) []byte { return cat(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b) }

// sshMpint is RFC 4251's mpint of a non-negative n: two's complement,
// big-endian, with a leading zero byte when the top bit is set; 0 is empty.
func sshMpint(n *big.Int) []byte {
	b := n.Bytes()
	if len(b) > 0 && b[0]&0x80 != 0 {
		b = cat([]byte{0}, b)
	}
	return sshString(b)
}

// An sshKey is an SSH key pair of the generator.
type sshKey struct {
	typ  string // ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256
	wire []byte // ssh_key, the public key in the SSH wire format
	id   []byte // ssh_key_id
	file []byte // the unencrypted OpenSSH private key file
	x    *key   // ssh-ed25519: the X25519 key; ecdsa: the P-256 key
	rsa  *rsa.PrivateKey
}

// line is the key's authorized_keys line with comment (none if empty).
func (s *sshKey) line(comment string) string {
	l := s.typ + " " + base64.StdEncoding.EncodeToString(s.wire)
	if comment != "" {
		l += " " + comment
	}
	return l
}

// hash is H(ssh_key).
func (s *sshKey) hash() []byte {
	h := sha256.Sum256(s.wire)
	return h[:]
}

// sshKeyID is SHA-256("fanseal/v1 ssh key id" || ssh_key)[0:8].
func sshKeyID(wire []byte) []byte {
	h := sha256.Sum256(cat([]byte("fanseal/v1 ssh key id"), wire))
	return h[:keyIDSize]
}

// openSSHFile is an unencrypted OpenSSH private key file (PROTOCOL.key)
// of one key: pub its wire form, priv the key-type-specific private
// fields after the key type.
func openSSHFile(typ string, pub, priv []byte, check []byte) []byte {
	list := cat(check, check, sshString([]byte(typ)), priv, sshString([]byte("fanseal conformance vectors")))
	for i := byte(1); len(list)%8 != 0; i++ {
		list = append(list, i)
	}
	blob := cat([]byte("openssh-key-v1\x00"), sshString([]byte("none")), sshString([]byte("none")), sshString(nil),
		binary.BigEndian.AppendUint32(nil, 1), sshString(pub), sshString(list))
	b64 := base64.StdEncoding.EncodeToString(blob)
	var b strings.Builder
	b.WriteString("-----BEGIN OPENSSH PRIVATE KEY-----\n")
	for len(b64) > 70 {
		b.WriteString(b64[:70] + "\n")
		b64 = b64[70:]
	}
	b.WriteString(b64 + "\n-----END OPENSSH PRIVATE KEY-----\n")
	return []byte(b.String())
}

var sshKeys = map[string]*sshKey{}

// sshEd25519 returns the ssh-ed25519 key called name.
func sshEd25519(name string) *sshKey {
	label := "ssh-ed25519 " + name
	if s, ok := sshKeys[label]; ok {
		return s
	}
	seed := draw(label, 32)
	a := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	wire := cat(sshString([]byte("ssh-ed25519")), sshString(a))
	// sk = clamp(SHA-512(seed)[0:32]); pk = the Montgomery u of A, which
	// must be the X25519 public key of sk.
	h := sha512.Sum512(seed)
	sk, _ := x25519.scalar(append([]byte(nil), h[:32]...))
	x := keyPair(x25519, sk) // its id is replaced by ssh_key_id below
	if u, ok := montgomery(a); !ok || string(u) != string(x.pk) {
		panic("ssh-ed25519: the Montgomery form of A is not the public key of the derived scalar")
	}
	x.id = sshKeyID(wire)
	s := &sshKey{typ: "ssh-ed25519", wire: wire, id: x.id, x: x,
		file: openSSHFile("ssh-ed25519", wire, cat(sshString(a), sshString(cat(seed, a))), draw(label+" check", 4))}
	sshKeys[label] = s
	return s
}

// The field of edwards25519 and Curve25519.
var (
	p25519 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	d25519 = func() *big.Int { // d = -121665/121666
		d := new(big.Int).ModInverse(big.NewInt(121666), p25519)
		d.Mul(d, big.NewInt(-121665))
		return d.Mod(d, p25519)
	}()
)

// le and fromLE convert between little-endian bytes and integers.
func le(n *big.Int, size int) []byte {
	b := n.FillBytes(make([]byte, size))
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return b
}

func fromLE(b []byte) *big.Int {
	r := make([]byte, len(b))
	for i := range b {
		r[len(b)-1-i] = b[i]
	}
	return new(big.Int).SetBytes(r)
}

// montgomery returns u = (1 + y) / (1 - y) mod p of the encoded
// Edwards point a, little-endian (RFC 7748), and whether y < p.
func montgomery(a []byte) ([]byte, bool) {
	y := fromLE(cat(a[:31], []byte{a[31] & 0x7f}))
	ok := y.Cmp(p25519) < 0
	y.Mod(y, p25519)
	num := new(big.Int).Add(big.NewInt(1), y)
	den := new(big.Int).Sub(big.NewInt(1), y)
	den.Mod(den, p25519)
	inv := new(big.Int).ModInverse(den, p25519)
	if inv == nil {
		inv = new(big.Int) // 1/0 taken as 0, as field inversion does
	}
	u := num.Mul(num, inv)
	return le(u.Mod(u, p25519), 32), ok
}

// edwardsX2 returns x^2 = (y^2 - 1) / (d y^2 + 1) mod p for y, and
// whether it is a square (y is a point's y-coordinate).
func edwardsX2(y *big.Int) (*big.Int, bool) {
	y2 := new(big.Int).Mul(y, y)
	num := new(big.Int).Sub(y2, big.NewInt(1))
	den := new(big.Int).Mul(d25519, y2)
	den.Add(den, big.NewInt(1))
	x2 := num.Mul(num, new(big.Int).ModInverse(den.Mod(den, p25519), p25519))
	x2.Mod(x2, p25519)
	return x2, x2.Sign() == 0 || new(big.Int).ModSqrt(x2, p25519) != nil
}

// ed25519Wire is the ssh-ed25519 wire form of the 32 bytes a.
func ed25519Wire(a []byte) []byte { return cat(sshString([]byte("ssh-ed25519")), sshString(a)) }

// sshECDSA returns the ecdsa-sha2-nistp256 key of the P-256 key k.
func sshECDSA(k *key) *sshKey {
	label := "ecdsa " + string(k.pk)
	if s, ok := sshKeys[label]; ok {
		return s
	}
	curve := []byte("nistp256")
	wire := cat(sshString([]byte("ecdsa-sha2-nistp256")), sshString(curve), sshString(k.pk))
	s := &sshKey{typ: "ecdsa-sha2-nistp256", wire: wire, id: sshKeyID(wire), x: k,
		file: openSSHFile("ecdsa-sha2-nistp256", wire, cat(sshString(curve), sshString(k.pk), sshMpint(new(big.Int).SetBytes(k.sk))),
			draw("ecdsa check "+k.recipient(), 4))}
	sshKeys[label] = s
	return s
}

// sshRSA returns the ssh-rsa key called name, of bits bits, its primes
// drawn from the kit's seed.
func sshRSA(name string, bits int) *sshKey { return sshRSAExponent(name, bits, 65537) }

// sshRSAExponent is sshRSA with the public exponent exp.
func sshRSAExponent(name string, bits int, exp int64) *sshKey {
	label := fmt.Sprintf("ssh-rsa %d %s", bits, name)
	if exp != 65537 {
		label += fmt.Sprintf(" e=%d", exp)
	}
	if s, ok := sshKeys[label]; ok {
		return s
	}
	e := big.NewInt(exp)
	one := big.NewInt(1)
	var priv *rsa.PrivateKey
	for i := 0; priv == nil; i++ {
		p := drawPrime(fmt.Sprintf("%s p #%d", label, i), bits/2)
		q := drawPrime(fmt.Sprintf("%s q #%d", label, i), bits/2)
		if p.Cmp(q) == 0 {
			continue
		}
		phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
		d := new(big.Int).ModInverse(e, phi)
		n := new(big.Int).Mul(p, q)
		if d == nil || n.BitLen() != bits {
			continue
		}
		priv = &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: n, E: int(e.Int64())}, D: d, Primes: []*big.Int{p, q}}
		priv.Precompute()
	}
	n, p, q := priv.N, priv.Primes[0], priv.Primes[1]
	wire := rsaWire(e, n)
	iqmp := new(big.Int).ModInverse(q, p)
	s := &sshKey{typ: "ssh-rsa", wire: wire, id: sshKeyID(wire), rsa: priv,
		file: openSSHFile("ssh-rsa", wire, cat(sshMpint(n), sshMpint(e), sshMpint(priv.D), sshMpint(iqmp), sshMpint(p), sshMpint(q)),
			draw(label+" check", 4))}
	sshKeys[label] = s
	return s
}

// rsaWire is string("ssh-rsa") || mpint(e) || mpint(n).
func rsaWire(e, n *big.Int) []byte {
	return cat(sshString([]byte("ssh-rsa")), sshMpint(e), sshMpint(n))
}

// drawPrime returns the first prime from a drawn odd number of bits bits
// with its top two bits set (so that two of them make a modulus of twice
// the bits).
func drawPrime(label string, bits int) *big.Int {
	b := draw(label, bits/8)
	b[0] |= 0xc0
	b[len(b)-1] |= 1
	p := new(big.Int).SetBytes(b)
	for !p.ProbablyPrime(20) {
		p.Add(p, big.NewInt(2))
	}
	return p
}

// mgf1 is RFC 8017's MGF1 with SHA-256.
func mgf1(seed []byte, n int) []byte {
	var out []byte
	for c := uint32(0); len(out) < n; c++ {
		h := sha256.Sum256(cat(seed, binary.BigEndian.AppendUint32(nil, c)))
		out = append(out, h[:]...)
	}
	return out[:n]
}

// oaepEncrypt is RFC 8017's RSAES-OAEP-ENCRYPT with SHA-256 and MGF1-SHA-256
// and the given seed: I2OSP(c, k).
func oaepEncrypt(pub *rsa.PublicKey, m, label, seed []byte) []byte {
	k := (pub.N.BitLen() + 7) / 8
	lHash := sha256.Sum256(label)
	db := cat(lHash[:], make([]byte, k-len(m)-2*32-2), []byte{1}, m)
	maskedDB := xor(db, mgf1(seed, k-32-1))
	maskedSeed := xor(seed, mgf1(maskedDB, 32))
	em := new(big.Int).SetBytes(cat([]byte{0}, maskedSeed, maskedDB))
	c := em.Exp(em, big.NewInt(int64(pub.E)), pub.N)
	return c.FillBytes(make([]byte, k))
}

func xor(a, b []byte) []byte {
	out := make([]byte, len(a))
	for i := range a {
		out[i] = a[i] ^ b[i]
	}
	return out
}

// sshEd25519Stanza returns a type 0x01 stanza of suite X25519 for the
// ssh-ed25519 key s: its ssh_key_id and info.
func (g *gen) sshEd25519Stanza(s *sshKey) stanza {
	eph := g.ephemeral(x25519)
	return func(e *envelope, pre []byte) (byte, []byte) {
		enc, ct, err := x25519.hpkeSealInfo(e.cipher(), s.x.pk, eph.sk, pre, e.fileKey, s.info())
		if err != nil {
			panic(err)
		}
		return 0x01, cat(u16(kemX25519), idOf(e, s.x), enc, ct)
	}
}

// info is "fanseal/v1 ssh-ed25519" || H(ssh_key).
func (s *sshKey) info() []byte { return cat([]byte("fanseal/v1 ssh-ed25519"), s.hash()) }

// sshTo returns a type 0x03 stanza for the ssh-ed25519 key s with the
// shared X25519 ephemeral key of sh; in a private envelope its tag is the
// Export of its own context, whose info is the ssh-ed25519 one.
func (sh *shared) sshTo(s *sshKey) stanza {
	return func(e *envelope, pre []byte) (byte, []byte) {
		return 0x03, sh.seal(e, pre, x25519, s.x.pk, idOf(e, s.x), s.info(), nil)
	}
}

// rsaStanza returns a type 0x06 stanza for the ssh-rsa key s; fileKey, if
// not nil, replaces the envelope's, and label, if not nil, computes the
// label from the preamble instead of FORMAT.md's.
func (g *gen) rsaStanza(s *sshKey, fileKey []byte, label func(pre []byte) []byte) stanza {
	seed := g.rand(32)
	return func(e *envelope, pre []byte) (byte, []byte) {
		fk := fileKey
		if fk == nil {
			fk = e.fileKey
		}
		l := cat([]byte("fanseal/v1 ssh-rsa"), s.hash(), pre)
		if label != nil {
			l = label(pre)
		}
		id := s.id
		if e.anonymous() || e.private() {
			id = nil // FORMAT.md, "Private envelopes": no key identifier
		}
		return 0x06, cat(id, oaepEncrypt(&s.rsa.PublicKey, fk, l, seed))
	}
}

// scryptLabel is the prefix of scrypt's salt.
const scryptLabel = "fanseal/v1 scrypt"

// scryptStanza returns a type 0x07 stanza for passphrase with work factor
// 2^logN; compute is the logN scrypt is computed with (the field may say
// another), saltLabel the salt's prefix.
func (g *gen) scryptStanza(passphrase string, logN, compute int, saltLabel string) stanza {
	salt := g.rand(16)
	return func(e *envelope, pre []byte) (byte, []byte) {
		key, err := scrypt.Key([]byte(passphrase), cat([]byte(saltLabel), salt), 1<<compute, 8, 1, 32)
		if err != nil {
			panic(err)
		}
		ct := newAEAD(e.cipher(), key).Seal(nil, make([]byte, 12), e.fileKey, pre)
		return 0x07, cat(salt, []byte{byte(logN)}, ct)
	}
}

// An ageStanza is an age stanza: its words (type and arguments) and body.
type ageStanza struct {
	words []string
	body  []byte
}

// encode is the type 0x08 encoding of the age stanza: argc, the words
// each with its length, B and the body.
func (a *ageStanza) encode() []byte {
	b := []byte{byte(len(a.words))}
	for _, w := range a.words {
		b = append(append(b, byte(len(w))), w...)
	}
	return cat(b, u16(len(a.body)), a.body)
}

// ageX25519 wraps secret for age's X25519 recipient to (c2sp.org/age,
// "X25519 recipient type").
func (g *gen) ageX25519(to *key, secret []byte) *ageStanza {
	eph := g.ephemeral(x25519)
	shared, err := x25519.dh(eph.sk, to.pk)
	if err != nil {
		panic(err)
	}
	wrapKey := expand(extract(cat(eph.pk, to.pk), shared), []byte("age-encryption.org/v1/X25519"), 32)
	a, err := chacha20poly1305.New(wrapKey)
	if err != nil {
		panic(err)
	}
	return &ageStanza{words: []string{"X25519", base64.RawStdEncoding.EncodeToString(eph.pk)},
		body: a.Seal(nil, make([]byte, 12), secret, nil)}
}

// ageStanzaInfo is the info of the key that seals the file key for the
// encoded age stanza enc.
func ageStanzaInfo(enc []byte) []byte {
	h := sha256.Sum256(enc)
	return cat([]byte("fanseal/v1 age stanza"), h[:])
}

// ageWrapped returns a type 0x08 stanza carrying a, with the file key
// sealed under the key derived from secret; info, if not nil, replaces
// the key's info.
func ageWrapped(a *ageStanza, secret []byte, info []byte) stanza {
	return func(e *envelope, pre []byte) (byte, []byte) {
		enc := a.encode()
		i := info
		if i == nil {
			i = ageStanzaInfo(enc)
		}
		key := expand(extract(e.nonce, secret), i, 32)
		return 0x08, cat(enc, newAEAD(e.cipher(), key).Seal(nil, make([]byte, 12), e.fileKey, pre))
	}
}

// ageIdentity is age's text of an X25519 identity.
func ageIdentity(k *key) string { return ageText("AGE-SECRET-KEY-", k.sk) }

// TestSSHKeys checks the generator's SSH key files and wire forms against
// x/crypto/ssh, and its RSAES-OAEP against crypto/rsa.
func TestSSHKeys(t *testing.T) {
	for _, s := range []*sshKey{sshEd25519("alice"), sshECDSA(alice(p256)), sshRSA("alice", 2048)} {
		pub, err := ssh.ParsePublicKey(s.wire)
		if err != nil || pub.Type() != s.typ || !bytes.Equal(pub.Marshal(), s.wire) {
			t.Fatalf("%s: x/crypto/ssh reads the wire form as %v, %v", s.typ, pub, err)
		}
		priv, err := ssh.ParseRawPrivateKey(s.file)
		if err != nil {
			t.Fatalf("%s: x/crypto/ssh does not read the private key file: %v", s.typ, err)
		}
		signer, err := ssh.NewSignerFromKey(priv)
		if err != nil || !bytes.Equal(signer.PublicKey().Marshal(), s.wire) {
			t.Fatalf("%s: the private key file holds another key (%v)", s.typ, err)
		}
	}
	s := sshRSA("alice", 2048)
	label, m := []byte("a label"), []byte("a 32-byte file key, for example!")
	ct := oaepEncrypt(&s.rsa.PublicKey, m, label, draw("oaep test seed", 32))
	got, err := rsa.DecryptOAEP(sha256.New(), nil, s.rsa, ct, label)
	if err != nil || !bytes.Equal(got, m) {
		t.Fatalf("crypto/rsa does not decrypt the generator's RSAES-OAEP: %v", err)
	}
}
