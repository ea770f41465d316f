package ecdhx8

import (
	"encoding/asn1"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

// The Wycheproof ECDH vectors (github.com/C2SP/wycheproof, testvectors_v1,
// Apache License 2.0: testdata/wycheproof/LICENSE), run eight at a time
// through ECDH on both paths.
//
// "valid" vectors must give their shared secret and "invalid" ones must be
// refused. The "acceptable" ones: compressed P-256 points are refused, as
// crypto/ecdh refuses them; the compressed secp256k1 point is accepted
// and gives its shared secret; for secp256k1 the public keys are DER
// SubjectPublicKeyInfo, parsed here with encoding/asn1 (a named-curve
// secp256k1 key only, as decred would be handed the point inside), so an
// acceptable vector with an unusual ASN.1 encoding or explicit curve
// parameters is refused by that parser or, where it parses, must give its
// shared secret.

type wycheproofFile struct {
	NumberOfTests int `json:"numberOfTests"`
	TestGroups    []struct {
		Curve string `json:"curve"`
		Tests []wycheproofTest
	} `json:"testGroups"`
}

type wycheproofTest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Public  string   `json:"public"`
	Private string   `json:"private"`
	Shared  string   `json:"shared"`
	Result  string   `json:"result"`
}

func loadWycheproof(t *testing.T, name string) *wycheproofFile {
	t.Helper()
	b, err := os.ReadFile("testdata/wycheproof/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var f wycheproofFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func unhexT(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scalar32 returns the big-endian private key as 32 bytes (Wycheproof
// writes some with a leading zero byte).
func scalar32(t *testing.T, b []byte) [32]byte {
	t.Helper()
	for len(b) > 32 && b[0] == 0 {
		b = b[1:]
	}
	if len(b) > 32 {
		t.Fatalf("private key of %d bytes", len(b))
	}
	var k [32]byte
	copy(k[32-len(b):], b)
	return k
}

var (
	oidECPublicKey = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidSecp256k1   = asn1.ObjectIdentifier{1, 3, 132, 0, 10}
)

// spkiPoint returns the point inside a DER SubjectPublicKeyInfo of a
// named-curve secp256k1 key.
func spkiPoint(der []byte) ([]byte, bool) {
	var spki struct {
		Algorithm struct {
			Algorithm  asn1.ObjectIdentifier
			Parameters asn1.RawValue
		}
		PublicKey asn1.BitString
	}
	rest, err := asn1.Unmarshal(der, &spki)
	if err != nil || len(rest) != 0 || !spki.Algorithm.Algorithm.Equal(oidECPublicKey) {
		return nil, false
	}
	var curve asn1.ObjectIdentifier
	if rest, err := asn1.Unmarshal(spki.Algorithm.Parameters.FullBytes, &curve); err != nil || len(rest) != 0 || !curve.Equal(oidSecp256k1) {
		return nil, false
	}
	if spki.PublicKey.BitLength%8 != 0 {
		return nil, false
	}
	return spki.PublicKey.Bytes, true
}

type wycheproofCase struct {
	wycheproofTest
	k      [32]byte
	point  []byte
	parsed bool // the public key's container parsed (always, for raw points)
}

func runWycheproof(t *testing.T, c Curve, f *wycheproofFile, der bool) {
	var cases []wycheproofCase
	for _, g := range f.TestGroups {
		for _, tc := range g.Tests {
			wc := wycheproofCase{wycheproofTest: tc, k: scalar32(t, unhexT(t, tc.Private))}
			pub := unhexT(t, tc.Public)
			if der {
				wc.point, wc.parsed = spkiPoint(pub)
			} else {
				wc.point, wc.parsed = pub, true
			}
			cases = append(cases, wc)
		}
	}
	if len(cases) != f.NumberOfTests {
		t.Fatalf("%d tests, the file says %d", len(cases), f.NumberOfTests)
	}
	for _, im := range paths() {
		counts := map[string]int{}
		for start := 0; start < len(cases); start += Lanes {
			n := min(Lanes, len(cases)-start)
			var scalars [Lanes][32]byte
			var points [Lanes][]byte
			for i := range n {
				scalars[i] = cases[start+i].k
				points[i] = cases[start+i].point
			}
			var dst [Lanes][32]byte
			errs := im.ecdh(c, &dst, &scalars, &points, n)
			for i := range n {
				tc := &cases[start+i]
				accepted := tc.parsed && errs[i] == nil
				if accepted && hex.EncodeToString(dst[i][:]) != tc.Shared {
					t.Errorf("%s tcId %d (%s): shared secret %x, want %s", im.name, tc.TcID, tc.Comment, dst[i], tc.Shared)
				}
				switch tc.Result {
				case "valid":
					if !accepted {
						t.Errorf("%s tcId %d (%s, %v): refused (%v, container parsed: %v)", im.name, tc.TcID, tc.Comment, tc.Flags, errs[i], tc.parsed)
					}
				case "invalid":
					if accepted {
						t.Errorf("%s tcId %d (%s, %v): accepted", im.name, tc.TcID, tc.Comment, tc.Flags)
					}
				}
				if accepted {
					counts[tc.Result+"/accepted"]++
				} else {
					counts[tc.Result+"/refused"]++
				}
			}
		}
		t.Logf("%s: %v", im.name, counts)
	}
}

func TestWycheproofP256(t *testing.T) {
	runWycheproof(t, P256, loadWycheproof(t, "ecdh_secp256r1_ecpoint_test.json"), false)
}

func TestWycheproofSecp256k1(t *testing.T) {
	runWycheproof(t, Secp256k1, loadWycheproof(t, "ecdh_secp256k1_test.json"), true)
}
