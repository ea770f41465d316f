package x25519x8

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestWycheproof runs every X25519 vector of Wycheproof
// (github.com/C2SP/wycheproof, testvectors_v1/x25519_test.json, Apache
// License 2.0: testdata/wycheproof/LICENSE) through ScalarMult, eight at a
// time, on both paths. ScalarMult is the X25519 function of RFC 7748, so
// every vector, "valid" or "acceptable", must give its listed shared
// secret: public keys on the twist and non-canonical ones are computed
// with (the file lists no "invalid" vector). The vectors flagged
// ZeroSharedSecret (low-order public keys) must give all zeros, the output
// a caller refuses, as RFC 7748 section 6.1 says and crypto/ecdh does.
func TestWycheproof(t *testing.T) {
	b, err := os.ReadFile("testdata/wycheproof/x25519_test.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		NumberOfTests int `json:"numberOfTests"`
		TestGroups    []struct {
			Curve string `json:"curve"`
			Tests []struct {
				TcID    int      `json:"tcId"`
				Comment string   `json:"comment"`
				Flags   []string `json:"flags"`
				Public  string   `json:"public"`
				Private string   `json:"private"`
				Shared  string   `json:"shared"`
				Result  string   `json:"result"`
			} `json:"tests"`
		} `json:"testGroups"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	type vector struct {
		id         int
		comment    string
		k, u, want [32]byte
		zero       bool
	}
	var vs []vector
	for _, g := range f.TestGroups {
		if g.Curve != "curve25519" {
			t.Fatalf("curve %q", g.Curve)
		}
		for _, tc := range g.Tests {
			if tc.Result != "valid" && tc.Result != "acceptable" {
				t.Fatalf("tcId %d: result %q", tc.TcID, tc.Result)
			}
			vs = append(vs, vector{
				id: tc.TcID, comment: tc.Comment,
				k: unhex(t, tc.Private), u: unhex(t, tc.Public), want: unhex(t, tc.Shared),
				zero: slices.Contains(tc.Flags, "ZeroSharedSecret"),
			})
		}
	}
	if len(vs) != f.NumberOfTests {
		t.Fatalf("%d vectors, the file says %d", len(vs), f.NumberOfTests)
	}
	for _, impl := range impls() {
		zeros := 0
		for start := 0; start < len(vs); start += Lanes {
			n := min(Lanes, len(vs)-start)
			var k, u, out [Lanes][32]byte
			for i := range n {
				k[i], u[i] = vs[start+i].k, vs[start+i].u
			}
			impl.mult(&out, &k, &u, n)
			for i := range n {
				v := &vs[start+i]
				if out[i] != v.want {
					t.Errorf("%s tcId %d (%s): got %s, want %s", impl.name, v.id, v.comment, hex.EncodeToString(out[i][:]), hex.EncodeToString(v.want[:]))
				}
				if isZero := out[i] == [32]byte{}; isZero != v.zero {
					t.Errorf("%s tcId %d (%s): all-zero output %v, flagged ZeroSharedSecret %v", impl.name, v.id, v.comment, isZero, v.zero)
				} else if isZero {
					zeros++
				}
			}
		}
		t.Logf("%s: %d vectors, %d all-zero outputs (low-order public keys) for the caller to refuse", impl.name, len(vs), zeros)
	}
}
