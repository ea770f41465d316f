//go:build unix

package cli

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	agetest "c2sp.org/CCTV/age"
)

// A cctvVector is one of age's conformance vectors (c2sp.org/CCTV/age):
// an age file, the identities and passphrase to open it with, and age's
// verdict.
type cctvVector struct {
	expect     string // success, no match, HMAC failure, header failure, armor failure, payload failure
	payload    []byte // the SHA-256 of the payload, where age gives one
	identities []string
	passphrase string
	file       []byte
}

// parseCCTV parses a vector as age's own tests do (filippo.io/age
// v1.3.2, testkit_test.go): header lines "key: value", a blank line, the
// file, zlib-compressed where the header says so.
func parseCCTV(t *testing.T, b []byte) *cctvVector {
	t.Helper()
	v := &cctvVector{}
	compressed := false
	for {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		if !ok {
			t.Fatal("no file in the vector")
		}
		b = rest
		if len(line) == 0 {
			break
		}
		key, value, _ := strings.Cut(string(line), ": ")
		switch key {
		case "expect":
			v.expect = value
		case "payload":
			h, err := hex.DecodeString(value)
			if err != nil || len(h) != sha256.Size {
				t.Fatalf("payload hash %q", value)
			}
			v.payload = h
		case "identity":
			v.identities = append(v.identities, value)
		case "passphrase":
			v.passphrase = value
		case "compressed":
			if value != "zlib" {
				t.Fatalf("compression %q", value)
			}
			compressed = true
		case "armored", "file key", "comment":
		default:
			t.Fatalf("unknown header %q", key)
		}
	}
	v.file = b
	if compressed {
		r, err := zlib.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if v.file, err = io.ReadAll(r); err != nil {
			t.Fatal(err)
		}
	}
	switch v.expect {
	case "success", "no match", "HMAC failure", "header failure", "armor failure", "payload failure":
	default:
		t.Fatalf("unknown verdict %q", v.expect)
	}
	return v
}

// TestAgeConformance runs every vector of age's conformance suite
// through fanseal decrypt -o: where age succeeds, the payload has the
// vector's hash; where age refuses, decrypt refuses, and no output file
// appears (even where age's streaming reader would have given the chunks
// before the fault). Every refusal is age's reader's, but for an empty
// file.
func TestAgeConformance(t *testing.T) {
	entries, err := fs.ReadDir(agetest.Vectors, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 100 {
		t.Fatalf("only %d vectors", len(entries))
	}
	verdicts := map[string]int{}
	for _, e := range entries {
		b, err := fs.ReadFile(agetest.Vectors, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		t.Run(e.Name(), func(t *testing.T) {
			v := parseCCTV(t, b)
			verdicts[v.expect]++
			dir := t.TempDir()
			in := writeFile(t, dir, "file.age", v.file)
			out := filepath.Join(dir, "out")
			args := []string{"decrypt", "-o", out}
			if len(v.identities) > 0 {
				args = append(args, "-i", writeFile(t, dir, "keys.txt", []byte(strings.Join(v.identities, "\n")+"\n")))
			}
			pass := v.passphrase
			if pass == "" {
				pass = "no passphrase in this vector"
			}
			asked := withPassphrase(t, pass)
			status, _, errOut := cli(t, "", append(args, in)...)
			got, readErr := os.ReadFile(out)
			if v.expect == "success" {
				if status != 0 || readErr != nil {
					t.Fatalf("age succeeds; fanseal: status %d, stderr %q", status, errOut)
				}
				if sum := sha256.Sum256(got); !bytes.Equal(sum[:], v.payload) {
					t.Fatalf("payload hash %x, want %x", sum, v.payload)
				}
				if v.passphrase == "" && *asked != 0 {
					t.Fatal("a passphrase was asked for a file with no passphrase stanza")
				}
				return
			}
			if !strings.HasPrefix(errOut, "fanseal: error: age file: ") && len(v.file) > 0 {
				t.Fatalf("age says %s; fanseal refused it, but not as an age file: %q", v.expect, errOut)
			}
			if status != 1 || !strings.HasPrefix(errOut, "fanseal: error: ") {
				t.Fatalf("age says %s; fanseal: status %d, stderr %q", v.expect, status, errOut)
			}
			if readErr == nil {
				t.Fatalf("age says %s; fanseal refused it but wrote %d bytes to the output", v.expect, len(got))
			}
			want := map[string]string{"no match": "not a recipient", "HMAC failure": "bad header MAC"}[v.expect]
			if v.expect == "no match" && v.passphrase != "" && strings.Contains(errOut, "incorrect passphrase") {
				want = "" // a wrong passphrase for a scrypt stanza: what age's command says too
			}
			if !strings.Contains(errOut, want) {
				t.Fatalf("age says %s; fanseal: %q, want it to say %q", v.expect, errOut, want)
			}
		})
	}
	t.Logf("verdicts: %v", verdicts)
}
