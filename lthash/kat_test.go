package lthash

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// blake2KAT holds entries of the BLAKE2 team's blake2-kat.json (see its
// _source field).
type blake2KAT struct {
	BLAKE2b, BLAKE2Xb []struct{ In, Out string }
}

// checkBLAKE2 runs f (input, output length) on the entries of one
// function of blake2_kat.json.
func checkBLAKE2(t *testing.T, name string, pick func(blake2KAT) []struct{ In, Out string }, f func([]byte, int) []byte) {
	t.Helper()
	var kat blake2KAT
	readJSON(t, "testdata/blake2_kat.json", &kat)
	vs := pick(kat)
	if len(vs) == 0 {
		t.Fatalf("no %s vectors", name)
	}
	for _, v := range vs {
		in, want := unhex(t, v.In), unhex(t, v.Out)
		if got := f(in, len(want)); !bytes.Equal(got, want) {
			t.Errorf("%s(%d bytes, %d out) = %x, want %x", name, len(in), len(want), got, want)
		}
	}
}

// TestBLAKE2bSpec checks the from-RFC BLAKE2b against RFC 7693's example
// (Appendix A) and the BLAKE2 team's unkeyed known answers.
func TestBLAKE2bSpec(t *testing.T) {
	abc := "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1" +
		"7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
	if got := hex.EncodeToString(blake2bSpec([]byte("abc"), 64)); got != abc {
		t.Fatalf("BLAKE2b-512(\"abc\") = %s", got)
	}
	checkBLAKE2(t, "BLAKE2b", func(k blake2KAT) []struct{ In, Out string } { return k.BLAKE2b }, blake2bSpec)
}

// TestBLAKE2XbSpec checks the from-paper BLAKE2Xb against the BLAKE2
// team's unkeyed BLAKE2Xb known answers, up to 256 bytes (four output
// blocks, the last one partial for most lengths).
func TestBLAKE2XbSpec(t *testing.T) {
	checkBLAKE2(t, "BLAKE2Xb", func(k blake2KAT) []struct{ In, Out string } { return k.BLAKE2Xb }, blake2xbSpec)
}

// blake3Vectors holds the hash-mode cases of the official BLAKE3 test
// vectors (see its _source field).
type blake3Vectors struct {
	Cases []struct {
		InputLen int `json:"input_len"`
		Hash     string
	}
}

// blake3Input is the vectors' input: the bytes 0, 1, ..., 250 repeated.
func blake3Input(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// TestBLAKE3Spec checks the from-specification BLAKE3 against every
// official test vector (131 bytes of extended output, inputs of one to
// 100 chunks).
func TestBLAKE3Spec(t *testing.T) {
	var v blake3Vectors
	readJSON(t, "testdata/blake3_test_vectors.json", &v)
	if len(v.Cases) == 0 {
		t.Fatal("no BLAKE3 vectors")
	}
	for _, c := range v.Cases {
		want := unhex(t, c.Hash)
		if got := blake3Spec(blake3Input(c.InputLen), len(want)); !bytes.Equal(got, want) {
			t.Errorf("BLAKE3(%d bytes) = %x, want %x", c.InputLen, got, want)
		}
	}
}

// TestExpandOfficialBLAKE3 compares lthash's BLAKE3 expansion directly
// with the official vectors: its first 131 bytes, of the 2048.
func TestExpandOfficialBLAKE3(t *testing.T) {
	var v blake3Vectors
	readJSON(t, "testdata/blake3_test_vectors.json", &v)
	for _, c := range v.Cases {
		want := unhex(t, c.Hash)
		var got [Size]byte
		Expand(BLAKE3, blake3Input(c.InputLen), &got)
		if !bytes.Equal(got[:len(want)], want) {
			t.Errorf("Expand(BLAKE3, %d bytes)[:%d] = %x, want %x", c.InputLen, len(want), got[:len(want)], want)
		}
	}
}

// TestExpandSpecBothXOFs compares all 2048 bytes of both expansions with
// the from-specification XOFs for the official vectors' inputs.
func TestExpandSpecBothXOFs(t *testing.T) {
	var v blake3Vectors
	readJSON(t, "testdata/blake3_test_vectors.json", &v)
	for _, c := range v.Cases {
		in := blake3Input(c.InputLen)
		for _, x := range xofs {
			var got [Size]byte
			Expand(x, in, &got)
			if want := reference(x, in); !bytes.Equal(got[:], want) {
				t.Errorf("Expand(%s, %d bytes) differs from the specification", x, c.InputLen)
			}
		}
	}
}
