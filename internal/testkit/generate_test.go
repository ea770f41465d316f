package testkit

import (
	"bytes"
	"crypto/ecdh"
	"crypto/hpke"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors from the generator")

const dir = "../../testdata/vectors"

// maxFile bounds one vector file: large envelopes are stored compressed.
const maxFile = 1 << 20

// TestGenerate regenerates every vector in memory and checks that the
// committed files are exactly what the generator writes, so the kit never
// drifts from its definition. With -update it rewrites them.
func TestGenerate(t *testing.T) {
	vs := vectors(t)
	checkCoverage(t, vs)
	files := map[string][]byte{}
	for _, v := range vs {
		data, err := v.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > maxFile {
			t.Errorf("vector %s: file of %d bytes; compress it", v.Name, len(data))
		}
		// What Parse reads back is what was generated.
		back, err := Parse(v.Name, data)
		if err != nil {
			t.Fatal(err)
		}
		if !same(back, v) {
			t.Fatalf("vector %s does not read back", v.Name)
		}
		files[v.Name] = data
	}
	if *update {
		must(t, os.RemoveAll(dir))
		must(t, os.MkdirAll(dir, 0o755))
		for name, data := range files {
			must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
		t.Logf("wrote %d vectors to %s", len(files), dir)
		return
	}
	entries, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok {
			t.Errorf("%s/%s is not generated; run go test ./internal/testkit -run TestGenerate -update", dir, e.Name())
		}
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s/%s differs from the generator (%v); run go test ./internal/testkit -run TestGenerate -update", dir, name, err)
		}
	}
	loaded, err := Load(dir)
	must(t, err)
	for _, v := range loaded {
		if v.Comment() == "" || !strings.HasPrefix(v.String(), v.Name+" (") {
			t.Errorf("vector %s: no comment", v.Name)
		}
	}
	if len(loaded) != len(files) {
		t.Errorf("Load read %d vectors, the generator writes %d", len(loaded), len(files))
	}
}

// checkCoverage checks that the kit holds what docs/FORMAT.md promises:
// every outcome, a success for every suite, stanza type and AEAD, and the
// vectors of every point that FORMAT.md settled.
func checkCoverage(t *testing.T, vs []*Vector) {
	names := map[string]*Vector{}
	classes := map[string]int{}
	for _, v := range vs {
		names[v.Name] = v
		classes[v.Expect]++
	}
	for _, c := range Classes {
		if classes[c] == 0 {
			t.Errorf("no %s vector", c)
		}
	}
	// Every rule of "What a reader checks" has a vector that names it.
	for rule := 1; rule <= 15; rule++ {
		named := false
		for _, v := range vs {
			named = named || strings.Contains(v.Comment(), fmt.Sprintf("rule %d:", rule)) || strings.Contains(v.Comment(), fmt.Sprintf("rule %d ", rule))
		}
		if !named {
			t.Errorf("no vector names rule %d", rule)
		}
	}
	for _, rule := range []string{"5a", "11a", "11b", "11c", "11d"} {
		named := false
		for _, v := range vs {
			named = named || strings.Contains(v.Comment(), "rule "+rule+":")
		}
		if !named {
			t.Errorf("no vector names rule %s", rule)
		}
	}
	// Every point that FORMAT.md settled has the vectors that pin it
	// (settledPoints).
	for _, p := range settledPoints {
		for name, class := range p.vectors {
			if v := names[name]; v == nil || v.Expect != class {
				t.Errorf("%s: no %s vector %s", p.point, class, name)
			}
		}
	}
	// A success for each of the types of "SSH keys, passphrases and age
	// stanzas", with both AEADs and the anonymous flag clear and set.
	for _, kind := range []string{"ssh_ed25519_success", "ssh_ed25519_shared", "ssh_rsa_success", "scrypt_success", "age_stanza_success"} {
		for _, a := range aeads {
			for _, anon := range []string{"", "_anonymous"} {
				if v := names[kind+"_"+aeadName(a)+anon]; v == nil || v.Expect != Success {
					t.Errorf("no success vector %s_%s%s", kind, aeadName(a), anon)
				}
			}
		}
	}
	// A private envelope (FORMAT.md, "Private envelopes") of every suite
	// and AEAD, and of each stanza type that may stand in one.
	for _, a := range aeads {
		for _, s := range kems {
			if v := names["success_"+s.name+"_private_"+aeadName(a)]; v == nil || v.Expect != Success {
				t.Errorf("no success vector success_%s_private_%s", s.name, aeadName(a))
			}
		}
		for _, kind := range []string{"ssh_ed25519_private", "ssh_rsa_private", "age_stanza_private"} {
			if v := names[kind+"_"+aeadName(a)]; v == nil || v.Expect != Success {
				t.Errorf("no success vector %s_%s", kind, aeadName(a))
			}
		}
	}
	for _, s := range kems {
		for _, a := range aeads {
			for _, kind := range []string{"hpke", "shared", "channel"} {
				if !s.classical() && kind != "hpke" {
					continue
				}
				for _, anon := range []string{"", "_anonymous"} {
					if kind == "channel" && anon != "" {
						continue
					}
					name := "success_" + s.name + "_" + kind + "_" + aeadName(a) + anon
					if v := names[name]; v == nil || v.Expect != Success {
						t.Errorf("no success vector %s", name)
					}
				}
			}
		}
	}
}

// TestDHKEM checks the generator's own DHKEM and key schedule against
// crypto/hpke, an independent implementation of RFC 9180, for P-256 and
// X25519 and both AEADs.
func TestDHKEM(t *testing.T) {
	for _, c := range []struct {
		k   *kem
		kem hpke.KEM
	}{{p256, hpke.DHKEM(ecdh.P256())}, {x25519, hpke.DHKEM(ecdh.X25519())}} {
		for _, a := range aeads {
			r := newKey(c.k, "dhkem test recipient")
			eph := newKey(c.k, "dhkem test ephemeral")
			aad, pt := []byte("aad"), make([]byte, 32)
			rand.Read(pt)
			enc, ct, err := c.k.hpkeSeal(a, r.pk, eph.sk, aad, pt)
			must(t, err)
			_, got, err := stdOpen(t, c.kem, a, r.sk, enc, aad, ct)
			if err != nil || !bytes.Equal(got, pt) {
				t.Errorf("%s %s: crypto/hpke does not open the generator's stanza: %v", c.k.name, aeadName(a), err)
			}
		}
	}
}

// TestPrivateStanzas checks the generator's private stanzas against
// crypto/hpke: a classical stanza's ct opens and its tag is crypto/hpke's
// Export of the same context (P-256 and X25519, both AEADs); a hybrid
// stanza opens with crypto/hpke's MLKEM768-X25519 given enc = ct_M ||
// ct_X, and its tag is what the recipient computes from its seed alone.
func TestPrivateStanzas(t *testing.T) {
	pre := draw("private test preamble", preambleSize)
	for _, c := range []struct {
		k   *kem
		kem hpke.KEM
	}{{p256, hpke.DHKEM(ecdh.P256())}, {x25519, hpke.DHKEM(ecdh.X25519())}, {mlkem, hpke.MLKEM768X25519()}} {
		for _, a := range aeads {
			g := &gen{name: "private test " + c.k.name + " " + aeadName(a)}
			e := g.newPrivate(a)
			sh := g.shared(c.k)
			r := newKey(c.k, "private test recipient")
			_, eph := sh.ephemeral()(e, pre)
			typ, body := sh.to(r)(e, pre)
			if typ != 0x03 {
				t.Fatalf("type %#x", typ)
			}
			tag, rest := body[2:2+tagSize], body[2+tagSize:]
			enc, ctX := eph[2:], eph[2:]
			if !c.k.classical() {
				if len(body) != 1146 || len(eph) != 34 {
					t.Fatalf("hybrid stanzas of L = %d and %d, want 1146 and 34", len(body), len(eph))
				}
				enc, rest = cat(rest[:mlkemCTSize], ctX), rest[mlkemCTSize:]
			}
			rc, got, err := stdOpen(t, c.kem, a, r.sk, enc, pre, rest)
			if err != nil || !bytes.Equal(got, e.fileKey) {
				t.Errorf("%s %s: crypto/hpke does not open the generator's private stanza: %v", c.k.name, aeadName(a), err)
			}
			var want []byte
			if c.k.classical() {
				want, err = rc.Export(tagLabel+string(pre), tagSize)
				must(t, err)
			} else {
				skX := hybridX25519(r.sk)
				pkX := r.pk[mlkemEKSize:]
				if !bytes.Equal(x25519.public(skX), pkX) {
					t.Fatalf("the X25519 key of the seed is not the last 32 bytes of the public key")
				}
				ssX, err := x25519.dh(skX, ctX)
				must(t, err)
				want = hybridTag(ssX, pre, ctX, pkX)
			}
			if !bytes.Equal(tag, want) {
				t.Errorf("%s %s: tag %x, the recipient computes %x", c.k.name, aeadName(a), tag, want)
			}
		}
	}
}

// TestSecp256k1DH checks the secp256k1 DH: symmetric, the X coordinate,
// and refusing points off the curve.
func TestSecp256k1DH(t *testing.T) {
	a, b := newKey(secp256k1KEM, "dh test a"), newKey(secp256k1KEM, "dh test b")
	ab, err := secp256k1KEM.dh(a.sk, b.pk)
	must(t, err)
	ba, err := secp256k1KEM.dh(b.sk, a.pk)
	must(t, err)
	if !bytes.Equal(ab, ba) || len(ab) != 32 {
		t.Fatalf("secp256k1 DH is not symmetric: %x %x", ab, ba)
	}
	// sk·G for sk = 1 is G, whose X coordinate is known.
	one := make([]byte, 32)
	one[31] = 1
	g := secp256k1.PrivKeyFromBytes(one).PubKey().SerializeUncompressed()
	x, err := secp256k1KEM.dh(one, g)
	must(t, err)
	if want := hexBytes("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"); !bytes.Equal(x, want) {
		t.Fatalf("1·G = %x, want the generator's X %x", x, want)
	}
	if _, err := secp256k1KEM.dh(a.sk, offCurve(b)); err == nil {
		t.Fatal("DH with a point off the curve succeeded")
	}
}

// TestKeyText checks the key text helpers: canonical text decodes to key
// and checksum, and setPadBit really makes a different string of the same
// bytes.
func TestKeyText(t *testing.T) {
	for _, k := range kems {
		r := alice(k).recipient()
		if r != "fanseal_"+k.name+"_"+r[len("fanseal_"+k.name+"_"):] || r != strings.ToLower(r) {
			t.Errorf("recipient text %q", r)
		}
	}
	id := me.identity()
	padded := setPadBit(id)
	if padded == id {
		t.Fatal("setPadBit changed nothing")
	}
	a, err1 := b32.DecodeString(id[len(identityPrefix(x25519)):])
	b, err2 := b32.DecodeString(padded[len(identityPrefix(x25519)):])
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Fatalf("setPadBit: %v %v %x %x", err1, err2, a, b)
	}
}

// TestParse checks that malformed vector files are refused.
func TestParse(t *testing.T) {
	good := "expect: success\npayload: " + string(bytes.Repeat([]byte("00"), 32)) + "\ncomment: c\n\nbody"
	if v, err := Parse("good", []byte(good)); err != nil || string(v.Body) != "body" {
		t.Fatalf("Parse(good) = %v, %v", v, err)
	}
	for _, bad := range []string{
		"expect: success\ncomment: c\n\n",                                 // no payload
		"expect: malformed\npayload: 00\ncomment: c\n\n",                  // payload for a failure
		"expect: maybe\ncomment: c\n\n",                                   // unknown class
		"expect: malformed\ncomment: c\n",                                 // no blank line
		"expect: malformed\ncolour: red\ncomment: c\n\n",                  // unknown field
		"expect: malformed\nexpect: malformed\ncomment: c\n\n",            // repeated field
		"expect: malformed\n\n",                                           // no comment
		"expect: malformed\narmored: no\ncomment: c\n\n",                  // armored is yes
		"expect: malformed\nepoch: 1\ncomment: c\n\n",                     // epoch without keyring
		"expect: malformed\nkeyring: x\ncomment: c\n\n",                   // keyring without peer
		"expect: malformed\ncompressed: zlib\ncomment: c\n\nbody",         // not zlib
		"expect: malformed\nrecipient: r\ncomment: c\n\n",                 // recipient outside invalid-key
		"expect malformed\ncomment: c\n\n",                                // not name: value
		"expect: malformed\nssh-identity: !!\ncomment: c\n\n",             // not base64
		"expect: malformed\npassphrase: a\npassphrase: b\ncomment: c\n\n", // two passphrases
	} {
		if _, err := Parse("bad", []byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty directory succeeded")
	}
}

// FuzzParse checks that Parse never panics and that what it accepts
// marshals back to a file that reads the same.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"success_x25519_channel_aes256gcm", "key_recipient_p256_off_curve", "recipients_10001_anonymous", "armor_good",
		"ssh_rsa_success_aes256gcm", "scrypt_success_aes256gcm", "age_stanza_success_aes256gcm"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse("fuzz", data)
		if err != nil {
			return
		}
		out, err := v.Marshal()
		if err != nil {
			t.Fatalf("a parsed vector does not marshal: %v", err)
		}
		w, err := Parse("fuzz", out)
		if err != nil {
			t.Fatalf("a marshaled vector does not parse: %v", err)
		}
		if !same(w, v) {
			t.Fatal("a vector reads back differently")
		}
	})
}

// same reports whether two vectors say the same.
func same(a, b *Vector) bool {
	return a.Expect == b.Expect && bytes.Equal(a.Payload, b.Payload) &&
		slices.Equal(a.Identities, b.Identities) && slices.Equal(a.Recipients, b.Recipients) &&
		slices.EqualFunc(a.SSHIdentities, b.SSHIdentities, bytes.Equal) && a.Passphrase == b.Passphrase &&
		slices.Equal(a.AgeIdentities, b.AgeIdentities) &&
		a.Keyring == b.Keyring && a.Peer == b.Peer && a.Epoch == b.Epoch &&
		a.Armored == b.Armored && a.Compressed == b.Compressed &&
		slices.Equal(a.Comments, b.Comments) && bytes.Equal(a.Body, b.Body)
}

// stdOpen opens the generator's stanza ct (encapsulated key enc, AEAD
// aeadID, additional data aad) with Go's crypto/hpke and the recipient's
// private key sk of kem, under the stanzas' info: the recipient context
// and the plaintext.
func stdOpen(t *testing.T, kem hpke.KEM, aeadID uint16, sk, enc, aad, ct []byte) (*hpke.Recipient, []byte, error) {
	t.Helper()
	priv, err := kem.NewPrivateKey(sk)
	must(t, err)
	ha, err := hpke.NewAEAD(aeadID)
	must(t, err)
	rc, err := hpke.NewRecipient(enc, priv, hpke.HKDFSHA256(), ha, []byte(fileKeyInfo))
	must(t, err)
	pt, err := rc.Open(aad, ct)
	return rc, pt, err
}
