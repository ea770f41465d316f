package hpke

import (
	"bytes"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/hmac"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha3"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type vector struct {
	Mode           uint16 `json:"mode"`
	KEM            uint16 `json:"kem_id"`
	KDF            uint16 `json:"kdf_id"`
	AEAD           uint16 `json:"aead_id"`
	Info           string `json:"info"`
	IkmE           string `json:"ikmE"`
	IkmR           string `json:"ikmR"`
	SkRm           string `json:"skRm"`
	PkRm           string `json:"pkRm"`
	Enc            string `json:"enc"`
	AccEncryptions string `json:"encryptions_accumulated"`
	AccExports     string `json:"exports_accumulated"`
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// next reads a length byte then that many bytes from the SHAKE stream, the
// input generator of the accumulated vectors in Go's testdata.
func next(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var l [1]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, l[0])
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRFC9180Vectors reproduces every base-mode RFC 9180 vector for the
// DHKEMs implemented here with HKDF-SHA256, byte for byte, using the
// accumulated form shipped with Go (1000 seals and 1000 exports hashed
// with SHAKE128).
func TestRFC9180Vectors(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "crypto", "hpke", "testdata", "rfc9180.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors []vector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, v := range vectors {
		if v.Mode != 0 || v.KDF != KDFHKDFSHA256 || (v.KEM != KEMP256 && v.KEM != KEMX25519) {
			continue
		}
		ran++
		t.Run(fmt.Sprintf("kem=%04x/aead=%04x", v.KEM, v.AEAD), func(t *testing.T) { checkVector(t, v) })
	}
	if ran != 8 {
		t.Fatalf("ran %d vectors, want 8 (2 KEMs x 4 AEADs)", ran)
	}
}

func checkVector(t *testing.T, v vector) {
	kem, err := NewKEM(v.KEM)
	if err != nil {
		t.Fatal(err)
	}
	suite, err := NewSuite(kem, v.AEAD)
	if err != nil {
		t.Fatal(err)
	}
	pkR := unhex(t, v.PkRm)
	skR, err := kem.DeriveKeyPair(unhex(t, v.IkmR))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(skR.PublicKey(), pkR) {
		t.Fatalf("DeriveKeyPair(ikmR) public key = %x, want %x", skR.PublicKey(), pkR)
	}
	if v.KEM == KEMP256 && !bytes.Equal(skR.Bytes(), unhex(t, v.SkRm)) {
		t.Fatalf("DeriveKeyPair(ikmR) private key = %x, want %x", skR.Bytes(), v.SkRm)
	}
	skR2, err := kem.NewPrivateKey(unhex(t, v.SkRm))
	if err != nil || !bytes.Equal(skR2.PublicKey(), pkR) {
		t.Fatalf("NewPrivateKey(skRm) = %v, %v", skR2, err)
	}
	eph, err := kem.DeriveKeyPair(unhex(t, v.IkmE))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(eph.PublicKey(), unhex(t, v.Enc)) {
		t.Fatalf("enc = %x, want %s", eph.PublicKey(), v.Enc)
	}
	pk, err := kem.NewPublicKey(pkR)
	if err != nil {
		t.Fatal(err)
	}
	ssS, err := kem.Encap(eph, pk)
	if err != nil {
		t.Fatal(err)
	}
	ssR, err := kem.Decap(eph.PublicKey(), skR2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ssS, ssR) {
		t.Fatal("Encap and Decap disagree")
	}
	info := unhex(t, v.Info)
	sender, err := suite.NewContext(ssS, suite.ScheduleContext(info))
	if err != nil {
		t.Fatal(err)
	}
	recipient, err := suite.NewContext(ssR, suite.ScheduleContext(info))
	if err != nil {
		t.Fatal(err)
	}
	if v.AEAD != AEADExportOnly {
		src, sink := sha3.NewSHAKE128(), sha3.NewSHAKE128()
		for range 1000 {
			aad, pt := next(t, src), next(t, src)
			ct, err := sender.Seal(nil, aad, pt)
			if err != nil {
				t.Fatal(err)
			}
			sink.Write(ct)
			got, err := recipient.Open(nil, aad, ct)
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("Open = %x, %v; want %x", got, err, pt)
			}
		}
		acc := make([]byte, 16)
		sink.Read(acc)
		if want := unhex(t, v.AccEncryptions); !bytes.Equal(acc, want) {
			t.Errorf("accumulated encryptions = %x, want %x", acc, want)
		}
	} else if _, err := sender.Seal(nil, nil, nil); err == nil {
		t.Error("export-only context sealed")
	}
	src, sink := sha3.NewSHAKE128(), sha3.NewSHAKE128()
	for l := range 1000 {
		exctx := next(t, src)
		out, err := sender.Export(exctx, l)
		if err != nil {
			t.Fatal(err)
		}
		sink.Write(out)
	}
	acc := make([]byte, 16)
	sink.Read(acc)
	if want := unhex(t, v.AccExports); !bytes.Equal(acc, want) {
		t.Errorf("accumulated exports = %x, want %x", acc, want)
	}
}

// TestOpensWithStdlib seals with this package and opens with crypto/hpke,
// an independent implementation, for every classical KEM it has.
func TestOpensWithStdlib(t *testing.T) {
	for _, tc := range []struct {
		kem   *KEM
		curve ecdh.Curve
	}{{P256(), ecdh.P256()}, {X25519(), ecdh.X25519()}} {
		for _, aead := range []uint16{AEADAES128GCM, AEADAES256GCM, AEADChaCha20Poly1305} {
			suite, _ := NewSuite(tc.kem, aead)
			skR, _ := tc.kem.GenerateKey()
			eph, _ := tc.kem.GenerateKey()
			pk, _ := tc.kem.NewPublicKey(skR.PublicKey())
			ss, err := tc.kem.Encap(eph, pk)
			if err != nil {
				t.Fatal(err)
			}
			info := []byte("cross-check")
			ctx, _ := suite.NewContext(ss, suite.ScheduleContext(info))
			ct1, _ := ctx.Seal(nil, []byte("aad1"), []byte("first"))
			ct2, _ := ctx.Seal(nil, []byte("aad2"), []byte("second"))

			priv, err := tc.curve.NewPrivateKey(skR.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			sk, _ := stdhpke.NewDHKEMPrivateKey(priv)
			a, _ := stdhpke.NewAEAD(aead)
			r, err := stdhpke.NewRecipient(eph.PublicKey(), sk, stdhpke.HKDFSHA256(), a, info)
			if err != nil {
				t.Fatal(err)
			}
			if pt, err := r.Open([]byte("aad1"), ct1); err != nil || string(pt) != "first" {
				t.Fatalf("kem %04x aead %04x: crypto/hpke Open = %q, %v", tc.kem.ID(), aead, pt, err)
			}
			if pt, err := r.Open([]byte("aad2"), ct2); err != nil || string(pt) != "second" {
				t.Fatalf("kem %04x aead %04x: crypto/hpke second Open = %q, %v", tc.kem.ID(), aead, pt, err)
			}
		}
	}
}

func TestSecp256k1RoundTrip(t *testing.T) {
	kem := Secp256k1()
	suite, _ := NewSuite(kem, AEADAES256GCM)
	skR, _ := kem.GenerateKey()
	eph, _ := kem.GenerateKey()
	if len(skR.PublicKey()) != 65 || len(skR.Bytes()) != 32 {
		t.Fatalf("key sizes %d/%d", len(skR.PublicKey()), len(skR.Bytes()))
	}
	pk, _ := kem.NewPublicKey(skR.PublicKey())
	ss, err := kem.Encap(eph, pk)
	if err != nil {
		t.Fatal(err)
	}
	ss2, err := kem.Decap(eph.PublicKey(), skR)
	if err != nil || !bytes.Equal(ss, ss2) {
		t.Fatalf("Decap = %x, %v; want %x", ss2, err, ss)
	}
	// A different recipient derives a different secret.
	other, _ := kem.GenerateKey()
	ss3, _ := kem.Decap(eph.PublicKey(), other)
	if bytes.Equal(ss, ss3) {
		t.Fatal("two recipients share a secret")
	}
	ctx, _ := suite.NewContext(ss, suite.ScheduleContext(nil))
	ct, _ := ctx.Seal(nil, nil, []byte("k1"))
	rctx, _ := suite.NewContext(ss2, suite.ScheduleContext(nil))
	if pt, err := rctx.Open(nil, nil, ct); err != nil || string(pt) != "k1" {
		t.Fatalf("Open = %q, %v", pt, err)
	}
	// Deterministic derivation and re-import.
	a, _ := kem.DeriveKeyPair([]byte("seed"))
	b, _ := kem.NewPrivateKey(a.Bytes())
	if !bytes.Equal(a.PublicKey(), b.PublicKey()) {
		t.Fatal("re-imported key differs")
	}
}

func TestInvalidKeys(t *testing.T) {
	order := unhex(t, "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	for _, tc := range []struct {
		name string
		kem  *KEM
		priv []byte
		pub  []byte
	}{
		{"p256/zero", P256(), make([]byte, 32), nil},
		{"p256/short", P256(), make([]byte, 31), nil},
		{"p256/infinity", P256(), nil, []byte{0}},
		{"p256/compressed", P256(), nil, append([]byte{2}, make([]byte, 32)...)},
		{"p256/offcurve", P256(), nil, append([]byte{4}, bytes.Repeat([]byte{1}, 64)...)},
		{"x25519/short", X25519(), nil, make([]byte, 31)},
		{"secp256k1/zero", Secp256k1(), make([]byte, 32), nil},
		{"secp256k1/order", Secp256k1(), order, nil},
		{"secp256k1/compressed", Secp256k1(), nil, append([]byte{2}, bytes.Repeat([]byte{1}, 32)...)},
		{"secp256k1/offcurve", Secp256k1(), nil, append([]byte{4}, bytes.Repeat([]byte{1}, 64)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.priv != nil {
				if _, err := tc.kem.NewPrivateKey(tc.priv); !errors.Is(err, ErrInvalidKey) {
					t.Fatalf("NewPrivateKey error = %v, want ErrInvalidKey", err)
				}
			}
			if tc.pub != nil {
				if _, err := tc.kem.NewPublicKey(tc.pub); !errors.Is(err, ErrInvalidKey) {
					t.Fatalf("NewPublicKey error = %v, want ErrInvalidKey", err)
				}
				sk, _ := tc.kem.GenerateKey()
				if _, err := tc.kem.Decap(tc.pub, sk); !errors.Is(err, ErrInvalidKey) {
					t.Fatalf("Decap error = %v, want ErrInvalidKey", err)
				}
			}
		})
	}
}

// x25519LowOrder are the encodings of X25519's low-order points (whose
// shared secret is all zeros): 0, 1, p − 1, the two points of order 8,
// and p and p + 1 (non-canonical 0 and 1), little-endian.
var x25519LowOrder = []string{
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
	"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
}

// TestX25519LowOrder checks that every low-order point (whose shared
// secret is all zeros) is refused, as RFC 9180 section 7.1.4 requires.
func TestX25519LowOrder(t *testing.T) {
	sk, _ := X25519().GenerateKey()
	for _, h := range x25519LowOrder {
		if _, err := X25519().Decap(unhex(t, h), sk); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Decap(%s) error = %v, want ErrInvalidKey", h, err)
		}
	}
}

func TestOpenFailure(t *testing.T) {
	suite, _ := NewSuite(P256(), AEADAES256GCM)
	ctx, _ := suite.NewContext(make([]byte, 32), suite.ScheduleContext(nil))
	ct, _ := ctx.Seal(nil, nil, []byte("x"))
	rctx, _ := suite.NewContext(make([]byte, 32), suite.ScheduleContext(nil))
	ct[0] ^= 1
	if _, err := rctx.Open(nil, nil, ct); !errors.Is(err, ErrOpen) {
		t.Fatalf("tampered Open error = %v", err)
	}
	ct[0] ^= 1
	if pt, err := rctx.Open(nil, nil, ct); err != nil || string(pt) != "x" {
		t.Fatalf("Open after failure = %q, %v (a failed Open must not advance the sequence)", pt, err)
	}
	if _, err := NewSuite(P256(), 0x0042); err == nil {
		t.Fatal("NewSuite accepted an unknown AEAD")
	}
	if _, err := NewKEM(0x0042); err == nil {
		t.Fatal("NewKEM accepted an unknown KEM")
	}
}

// TestMAC compares the pooled HMAC-SHA256 with crypto/hmac for keys of 0
// to 130 bytes (below, at and above the block size) and messages of 0 to
// 200 bytes, reusing each mac for several messages and the pool for
// every key.
func TestMAC(t *testing.T) {
	for kl := 0; kl <= 130; kl += 5 {
		key := bytes.Repeat([]byte{byte(kl)}, kl)
		m := getMAC(key)
		for ml := 0; ml <= 200; ml += 13 {
			msg := bytes.Repeat([]byte{byte(ml + 1)}, ml)
			want := hmac.New(sha256.New, key)
			want.Write(msg)
			m.start()
			m.write(append(m.buf[:0], msg...))
			if got := m.finish(nil); !bytes.Equal(got, want.Sum(nil)) {
				t.Fatalf("key of %d bytes, message of %d: %x, crypto/hmac says %x", kl, ml, got, want.Sum(nil))
			}
		}
		m.release()
	}
}

// TestX25519Public compares the X25519 public keys of NewEphemeral and
// NewPrivateKey (edwards25519's fixed base) and GenerateKey with
// crypto/ecdh's, for random keys and keys whose clamped bits are all set
// or all clear.
func TestX25519Public(t *testing.T) {
	keys := [][]byte{make([]byte, 32), bytes.Repeat([]byte{0xff}, 32)}
	for i := range 200 {
		sk, err := X25519().GenerateKey()
		if i%2 == 0 {
			sk = X25519().NewEphemeral()
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, sk.Bytes())
		priv, _ := ecdh.X25519().NewPrivateKey(sk.Bytes())
		if !bytes.Equal(sk.PublicKey(), priv.PublicKey().Bytes()) {
			t.Fatalf("GenerateKey: public key %x, crypto/ecdh says %x", sk.PublicKey(), priv.PublicKey().Bytes())
		}
	}
	for _, k := range keys {
		sk, err := X25519().NewPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		priv, _ := ecdh.X25519().NewPrivateKey(k)
		if !bytes.Equal(sk.PublicKey(), priv.PublicKey().Bytes()) {
			t.Fatalf("key %x: public key %x, crypto/ecdh says %x", k, sk.PublicKey(), priv.PublicKey().Bytes())
		}
	}
}

// TestHKDF32 compares HKDF32 and AppendHMAC with crypto/hkdf and
// crypto/hmac, and HKDF32 with RFC 5869's test case 3 (empty salt and
// info, truncated to 32 bytes).
func TestHKDF32(t *testing.T) {
	for _, c := range []struct{ secret, salt []byte }{
		{make([]byte, 32), make([]byte, 16)}, {[]byte("file key"), nil}, {bytes.Repeat([]byte{7}, 100), bytes.Repeat([]byte{9}, 70)},
	} {
		infos := []string{"fanseal/v1 header", "fanseal/v1 payload", ""}
		got := HKDF32(c.secret, c.salt, infos...)
		prk, _ := hkdf.Extract(sha256.New, c.secret, c.salt)
		for i, info := range infos {
			want, _ := hkdf.Expand(sha256.New, prk, info, 32)
			if !bytes.Equal(got[i], want) {
				t.Fatalf("HKDF32(%x, %x, %q) = %x, crypto/hkdf says %x", c.secret, c.salt, info, got[i], want)
			}
		}
		m := hmac.New(sha256.New, c.salt)
		m.Write(c.secret)
		if got := AppendHMAC([]byte("x"), c.salt, c.secret); !bytes.Equal(got, m.Sum([]byte("x"))) {
			t.Fatalf("AppendHMAC = %x, crypto/hmac says %x", got, m.Sum([]byte("x")))
		}
	}
	okm := HKDF32(bytes.Repeat([]byte{0x0b}, 22), nil, "")[0]
	if want := "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"; hex.EncodeToString(okm) != want {
		t.Fatalf("RFC 5869 test case 3: %x, want %s", okm, want)
	}
}

// TestNewEphemeral: a key of NewEphemeral joins a batch before its public
// key is known, its public key is the one NewPrivateKey computes from its
// bytes, and its one-at-a-time agreements and PublicKey calls, from many
// goroutines at once, agree with the batch and with Decap.
func TestNewEphemeral(t *testing.T) {
	for _, kem := range batchKEMs {
		sks, pks := batchKeys(t, kem, MaxBatch, -1)
		eph := kem.NewEphemeral()
		ss, errs := kem.EncapShared(eph, pks)
		if errs != nil {
			t.Fatal(errs)
		}
		same, err := kem.NewPrivateKey(eph.Bytes())
		if err != nil {
			t.Fatalf("KEM %04x: NewEphemeral's key %x: %v", kem.ID(), eph.Bytes(), err)
		}
		var wg sync.WaitGroup
		for i := range pks {
			wg.Go(func() {
				if !bytes.Equal(eph.PublicKey(), same.PublicKey()) {
					t.Errorf("KEM %04x: public key %x, NewPrivateKey says %x", kem.ID(), eph.PublicKey(), same.PublicKey())
				}
				one, err := kem.Encap(eph, pks[i])
				want, err2 := kem.Decap(eph.PublicKey(), sks[i])
				if err != nil || err2 != nil || !bytes.Equal(one, ss[i]) || !bytes.Equal(want, ss[i]) {
					t.Errorf("KEM %04x, key %d: Encap %x, EncapShared %x, Decap %x (%v, %v)", kem.ID(), i, one, ss[i], want, err, err2)
				}
			})
		}
		wg.Wait()
	}
}

// TestX25519PublicBothWays: the first x25519LaddersFirst X25519 private
// keys of a process get their public key from crypto/ecdh's ladder (and
// keep its key for their agreements), the later ones from edwards25519's
// table (x25519Public); both give the key crypto/ecdh gives, and RFC 7748
// section 6.1's.
func TestX25519PublicBothWays(t *testing.T) {
	k, err := NewKEM(KEMX25519)
	if err != nil {
		t.Fatal(err)
	}
	alice, _ := hex.DecodeString("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
	alicePub := "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
	x25519Ladders.Store(0)
	for i := range x25519LaddersFirst + 8 {
		b := make([]byte, 32)
		rand.Read(b)
		if i == 0 || i == x25519LaddersFirst {
			b = alice
		}
		sk, err := k.NewPrivateKey(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ecdh.X25519().NewPrivateKey(b)
		if err != nil {
			t.Fatal(err)
		}
		got := sk.k.publicBytes()
		if !bytes.Equal(got, want.PublicKey().Bytes()) || (bytes.Equal(b, alice) && hex.EncodeToString(got) != alicePub) {
			t.Fatalf("key %d: public key %x, crypto/ecdh %x", i, got, want.PublicKey().Bytes())
		}
		ladder := sk.k.(*x25519Key).k != nil
		if ladder != (i < x25519LaddersFirst) {
			t.Fatalf("key %d: from the ladder %v, want %v", i, ladder, i < x25519LaddersFirst)
		}
	}
}
