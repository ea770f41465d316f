package fanseal

import (
	"bufio"
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/hmac"
	stdhpke "crypto/hpke"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/stream"
)

func readHeader(t *testing.T, env []byte) *format.Header {
	t.Helper()
	h, err := format.ReadHeader(bufio.NewReader(bytes.NewReader(env)))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestIndependentOpen opens real envelopes with nothing but Go's
// crypto/hpke and the constants of docs/FORMAT.md: every P-256 and X25519
// stanza must be a standard HPKE base-mode ciphertext, and the header MAC
// and payload must follow from the file key as documented.
func TestIndependentOpen(t *testing.T) {
	for _, tc := range ecdhSuites {
		for _, aead := range []AEAD{AES256GCM, ChaCha20Poly1305} {
			t.Run(fmt.Sprintf("suite=%s/aead=%s", tc.suite, aead), func(t *testing.T) {
				ids, rs := identities(t, tc.suite, 5)
				pt := randomBytes(stream.ChunkSize + 100)
				env := mustSeal(t, &Sealer{Identified: true, AEAD: aead}, pt, rs...)
				h := readHeader(t, env)
				preamble := env[:29]
				var fileKey []byte
				for st := range h.Stanzas() {
					body := st.Body
					if st.Type != 0x01 || binary.BigEndian.Uint16(body) != uint16(tc.suite) {
						t.Fatalf("stanza %d: type %d suite %x", st.Index, st.Type, body[:2])
					}
					encLen := len(body) - 2 - 8 - 48
					enc, ct := body[10:10+encLen], body[10+encLen:]
					priv, err := tc.curve.NewPrivateKey(ids[st.Index].priv)
					if err != nil {
						t.Fatal(err)
					}
					sk, _ := stdhpke.NewDHKEMPrivateKey(priv)
					a, _ := stdhpke.NewAEAD(uint16(aead))
					r, err := stdhpke.NewRecipient(enc, sk, stdhpke.HKDFSHA256(), a, []byte("fanseal/v1 file key"))
					if err != nil {
						t.Fatal(err)
					}
					key, err := r.Open(preamble, ct)
					if err != nil {
						t.Fatalf("crypto/hpke cannot open stanza %d: %v", st.Index, err)
					}
					if fileKey != nil && !bytes.Equal(key, fileKey) {
						t.Fatal("stanzas hold different file keys")
					}
					fileKey = key
				}
				nonce := env[11:27]
				macKey, _ := hkdf.Key(sha256.New, fileKey, nonce, "fanseal/v1 header", 32)
				m := hmac.New(sha256.New, macKey)
				m.Write(h.Raw)
				if !hmac.Equal(m.Sum(nil), h.MAC[:]) {
					t.Fatal("header MAC does not follow the documented derivation")
				}
				payloadKey, _ := hkdf.Key(sha256.New, fileKey, nonce, "fanseal/v1 payload", 32)
				pa := specAEAD(t, aead, payloadKey)
				payload := env[len(h.Raw)+32:]
				var n [12]byte
				c0, err := pa.Open(nil, n[:], payload[:stream.ChunkSize+16], nil)
				if err != nil || !bytes.Equal(c0, pt[:stream.ChunkSize]) {
					t.Fatalf("first chunk: %v", err)
				}
				n[10], n[11] = 1, 1
				c1, err := pa.Open(nil, n[:], payload[stream.ChunkSize+16:], nil)
				if err != nil || !bytes.Equal(c1, pt[stream.ChunkSize:]) {
					t.Fatalf("last chunk: %v", err)
				}
			})
		}
	}
}

func TestNotRecipient(t *testing.T) {
	for _, s := range Suites {
		_, rs := identities(t, s, 3)
		env := mustSeal(t, &Sealer{Identified: true}, []byte("x"), rs...)
		stranger, _ := GenerateIdentity(s)
		if _, err := OpenBytes(env, stranger); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("%s: stranger's Open error = %v, want ErrNotRecipient", s, err)
		}
		anon := mustSeal(t, &Sealer{Identified: true, Anonymous: true}, []byte("x"), rs...)
		if _, err := OpenBytes(anon, stranger); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("%s: stranger's anonymous Open error = %v, want ErrNotRecipient", s, err)
		}
		if _, err := OpenBytes(env); !errors.Is(err, ErrNotRecipient) {
			t.Errorf("%s: Open without identities: %v", s, err)
		}
	}
	// An identity of another suite is not a recipient either.
	_, rs := identities(t, P256, 1)
	other, _ := identities(t, X25519, 1)
	env := mustSeal(t, &Sealer{Identified: true}, nil, rs...)
	if _, err := OpenBytes(env, other...); !errors.Is(err, ErrNotRecipient) {
		t.Errorf("other suite: %v", err)
	}
}

// TestOneKeyAgreement asserts that Open performs exactly one key agreement
// whatever the number of recipients, when opening as the last.
func TestOneKeyAgreement(t *testing.T) {
	for _, s := range Suites {
		for _, n := range []int{2, 100, 1000} {
			ids, rs := identities(t, s, n)
			env := mustSeal(t, &Sealer{Identified: true}, []byte("k"), rs...)
			before := keyAgreements.Load()
			mustOpen(t, env, []byte("k"), ids[n-1])
			if got := keyAgreements.Load() - before; got != 1 {
				t.Errorf("suite=%s n=%d: Open did %d key agreements, want 1", s, n, got)
			}
		}
	}
	// Anonymous: one per stanza of the suite up to the right one.
	ids, rs := identities(t, X25519, 10)
	env := mustSeal(t, &Sealer{Identified: true, Anonymous: true}, nil, rs...)
	before := keyAgreements.Load()
	mustOpen(t, env, nil, ids[9])
	if got := keyAgreements.Load() - before; got != 10 {
		t.Errorf("anonymous Open as the 10th did %d key agreements, want 10", got)
	}
}

// TestAnonymousHidesRecipients checks that an anonymous envelope holds no
// key identifier.
func TestAnonymousHidesRecipients(t *testing.T) {
	_, rs := identities(t, X25519, 3)
	env := mustSeal(t, &Sealer{Identified: true, Anonymous: true}, nil, rs...)
	for _, r := range rs {
		id := r.KeyID()
		if bytes.Contains(env, id[:]) {
			t.Fatal("anonymous envelope contains a key identifier")
		}
	}
	named := mustSeal(t, &Sealer{Identified: true}, nil, rs...)
	if id := rs[2].KeyID(); !bytes.Contains(named, id[:]) {
		t.Fatal("envelope lacks a key identifier")
	}
}

// TestEveryByteFlip flips every bit of a small envelope, one at a time:
// every change must be an error.
func TestEveryByteFlip(t *testing.T) {
	for _, s := range []Suite{P256, X25519} {
		for _, anon := range []bool{false, true} {
			ids, rs := identities(t, s, 2)
			env := mustSeal(t, &Sealer{Identified: true, Anonymous: anon}, []byte("short payload"), rs...)
			for i := range env {
				for bit := range 8 {
					bad := bytes.Clone(env)
					bad[i] ^= 1 << bit
					if pt, err := OpenBytes(bad, ids[1]); err == nil {
						t.Fatalf("suite=%s anonymous=%v: flipping bit %d of byte %d still opens (%q)", s, anon, bit, i, pt)
					}
				}
			}
		}
	}
}

// TestEveryTruncation opens every proper prefix of envelopes with one and
// with three payload chunks.
func TestEveryTruncation(t *testing.T) {
	ids, rs := identities(t, P256, 2)
	small := mustSeal(t, &Sealer{Identified: true}, []byte("short payload"), rs...)
	for n := range len(small) {
		if _, err := OpenBytes(small[:n], ids[0]); err == nil {
			t.Fatalf("prefix of %d/%d bytes opens", n, len(small))
		}
	}
	big := mustSeal(t, &Sealer{Identified: true}, randomBytes(2*stream.ChunkSize+10), rs...)
	hdr := len(readHeader(t, big).Raw) + format.MACSize
	for n := hdr; n < len(big); n += 997 {
		if _, err := OpenBytes(big[:n], ids[0]); err == nil {
			t.Fatalf("prefix of %d/%d bytes opens", n, len(big))
		}
	}
	// Cut exactly at a chunk boundary: the missing last chunk is detected.
	cut := hdr + 2*(stream.ChunkSize+16)
	if _, err := OpenBytes(big[:cut], ids[0]); !errors.Is(err, ErrTruncated) {
		t.Fatalf("cut at a chunk boundary: %v, want ErrTruncated", err)
	}
	if _, err := OpenBytes(big[:hdr], ids[0]); !errors.Is(err, ErrTruncated) {
		t.Fatalf("no payload: %v, want ErrTruncated", err)
	}
	if _, err := OpenBytes(small[:40], ids[0]); !errors.Is(err, ErrTruncated) {
		t.Fatalf("cut in the header: %v, want ErrTruncated", err)
	}
}

func TestPayloadTampering(t *testing.T) {
	ids, rs := identities(t, X25519, 1)
	pt := randomBytes(3*stream.ChunkSize + 5)
	env := mustSeal(t, &Sealer{Identified: true}, pt, rs...)
	hdr := len(readHeader(t, env).Raw) + format.MACSize
	const c = stream.ChunkSize + 16
	chunk := func(i int) []byte { return env[hdr+i*c : min(hdr+(i+1)*c, len(env))] }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	head := env[:hdr]
	for name, bad := range map[string][]byte{
		"swap-1-2":       cat(head, chunk(0), chunk(2), chunk(1), chunk(3)),
		"duplicate-0":    cat(head, chunk(0), chunk(0), chunk(1), chunk(2), chunk(3)),
		"drop-1":         cat(head, chunk(0), chunk(2), chunk(3)),
		"extend":         cat(env, chunk(3)),
		"trailing-bytes": cat(env, []byte{0}),
	} {
		if _, err := OpenBytes(bad, ids[0]); err == nil {
			t.Errorf("%s: opened", name)
		} else if !errors.Is(err, ErrAuthentication) && !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: error %v is neither ErrAuthentication nor ErrTruncated", name, err)
		}
	}
	// Nothing past the last good chunk reaches the caller.
	r, err := Open(bytes.NewReader(cat(head, chunk(0), chunk(2))), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAllPartial(r)
	if !errors.Is(err, ErrAuthentication) || !bytes.Equal(got, pt[:stream.ChunkSize]) {
		t.Fatalf("got %d bytes and %v; want the first chunk then ErrAuthentication", len(got), err)
	}
}

func readAllPartial(r interface{ Read([]byte) (int, error) }) ([]byte, error) {
	var out []byte
	p := make([]byte, 4096)
	for {
		n, err := r.Read(p)
		out = append(out, p[:n]...)
		if err != nil {
			return out, err
		}
	}
}

// TestStanzaSwap moves a recipient's stanza from one envelope into another
// for the same recipients: the envelope must not open.
func TestStanzaSwap(t *testing.T) {
	ids, rs := identities(t, P256, 2)
	a := mustSeal(t, &Sealer{Identified: true}, []byte("envelope a"), rs...)
	b := mustSeal(t, &Sealer{Identified: true}, []byte("envelope b"), rs...)
	ha, hb := readHeader(t, a), readHeader(t, b)
	var sa, sb []byte
	for st := range ha.Stanzas() {
		if st.Index == 1 {
			sa = st.Body
		}
	}
	for st := range hb.Stanzas() {
		if st.Index == 1 {
			sb = st.Body
		}
	}
	swapped := bytes.Replace(bytes.Clone(a), sa, sb, 1)
	if _, err := OpenBytes(swapped, ids[1]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("swapped stanza, its recipient: %v, want ErrAuthentication", err)
	}
	if _, err := OpenBytes(swapped, ids[0]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("swapped stanza, the other recipient: %v, want ErrAuthentication", err)
	}
	// Dropping a stanza (and fixing the count) is caught by the MAC too.
	dropped := bytes.Clone(a[:len(ha.Raw)-format.StanzaSize(len(sa))])
	binary.BigEndian.PutUint16(dropped[27:29], 1)
	dropped = append(dropped, a[len(ha.Raw):]...)
	if _, err := OpenBytes(dropped, ids[0]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("dropped stanza: %v, want ErrAuthentication", err)
	}
}

func TestHeaderErrors(t *testing.T) {
	ids, rs := identities(t, X25519, 1)
	env := mustSeal(t, &Sealer{Identified: true}, []byte("x"), rs...)
	edit := func(f func(b []byte)) []byte { b := bytes.Clone(env); f(b); return b }
	for _, tc := range []struct {
		name string
		env  []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"magic", edit(func(b []byte) { b[0] = 'X' }), ErrMalformed},
		{"version", edit(func(b []byte) { b[7] = 2 }), ErrUnsupported},
		{"flags", edit(func(b []byte) { b[8] = 0x80 }), ErrUnsupported},
		{"aead", edit(func(b []byte) { b[10] = 0x01 }), ErrUnsupported},
		{"count-zero", edit(func(b []byte) { b[27], b[28] = 0, 0 }), ErrMalformed},
		{"count-over", edit(func(b []byte) { b[27], b[28] = 0xff, 0xff }), ErrMalformed},
		{"count-more", edit(func(b []byte) { b[28] = 2 }), ErrTruncated},
		{"stanza-type", edit(func(b []byte) { b[29] = 0x7f }), ErrNotRecipient},
		{"key-id", edit(func(b []byte) { b[34] ^= 1 }), ErrNotRecipient},
		{"ephemeral", edit(func(b []byte) { b[42] ^= 1 }), ErrAuthentication},
		{"wrapped-key", edit(func(b []byte) { b[80] ^= 1 }), ErrAuthentication},
		{"mac", edit(func(b []byte) { b[len(b)-40] ^= 1 }), ErrAuthentication},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := OpenBytes(tc.env, ids[0]); !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestInvalidEphemeral replaces a stanza's ephemeral key with invalid and
// low-order points: the stanza fails to authenticate (malformed is the
// framing's verdict, which does not decode keys).
func TestInvalidEphemeral(t *testing.T) {
	pids, prs := identities(t, P256, 1)
	xids, xrs := identities(t, X25519, 1)
	p := mustSeal(t, &Sealer{Identified: true}, nil, prs...)
	x := mustSeal(t, &Sealer{Identified: true}, nil, xrs...)
	offcurve := bytes.Clone(p)
	copy(offcurve[42:], append([]byte{4}, bytes.Repeat([]byte{7}, 64)...))
	if _, err := OpenBytes(offcurve, pids[0]); !errors.Is(err, ErrAuthentication) || errors.Is(err, ErrMalformed) {
		t.Errorf("P-256 off-curve ephemeral: %v", err)
	}
	for _, low := range [][]byte{make([]byte, 32), append([]byte{1}, make([]byte, 31)...)} {
		bad := bytes.Clone(x)
		copy(bad[42:74], low)
		if _, err := OpenBytes(bad, xids[0]); !errors.Is(err, ErrAuthentication) || errors.Is(err, ErrMalformed) {
			t.Errorf("X25519 low-order ephemeral %x: %v", low[:1], err)
		}
	}
}

// TestCollidingKeyID: two distinct keys whose identifiers collide cannot
// share an envelope with identifiers (readers would refuse it), but can
// share a private or an anonymous one, which carries none.
func TestCollidingKeyID(t *testing.T) {
	ids, rs := identities(t, P256, 2)
	colliding := *rs[0]
	colliding.id = rs[1].id
	identified := &Sealer{Identified: true}
	if _, err := identified.SealBytes([]byte("x"), &colliding, rs[1]); !errors.Is(err, ErrDuplicateRecipient) {
		t.Fatalf("colliding identifiers: %v", err)
	}
	_, many := identities(t, X25519, 40)
	many = append(many[:40:40], &colliding, rs[1])
	if _, err := identified.SealBytes([]byte("x"), many...); !errors.Is(err, ErrDuplicateRecipient) {
		t.Fatalf("colliding identifiers among %d recipients: %v", len(many), err)
	}
	for _, s := range []*Sealer{{}, {Anonymous: true}} {
		env := mustSeal(t, s, []byte("x"), &colliding, rs[1])
		mustOpen(t, env, []byte("x"), ids[1])
		mustOpen(t, env, []byte("x"), ids[0])
	}
}

// ecdhSuites are the suites that crypto/ecdh implements, for tests that
// check stanzas against it.
var ecdhSuites = []struct {
	suite Suite
	curve ecdh.Curve
}{{P256, ecdh.P256()}, {X25519, ecdh.X25519()}}

// specAEAD is the AEAD with RFC 9180 id aead under key, built from
// crypto/aes and chacha20poly1305 rather than fanseal's own code.
func specAEAD(t *testing.T, aead AEAD, key []byte) cipher.AEAD {
	t.Helper()
	var a cipher.AEAD
	var err error
	switch aead {
	case AES256GCM:
		var b cipher.Block
		if b, err = aes.NewCipher(key); err == nil {
			a, err = cipher.NewGCM(b)
		}
	case ChaCha20Poly1305:
		a, err = chacha20poly1305.New(key)
	default:
		t.Fatalf("no AEAD %s", aead)
	}
	if err != nil {
		t.Fatal(err)
	}
	return a
}
