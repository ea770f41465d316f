package stream

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/fanseal/fanseal/internal/errs"
)

func newAEAD(t testing.TB) cipher.AEAD {
	b, err := aes.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := cipher.NewGCM(b)
	return a
}

// seal seals pt with the sequential Writer, in writes of writeSize.
func seal(t testing.TB, pt []byte, writeSize int) []byte {
	return sealWith(t, pt, 1, writeSize)
}

func TestRoundTrip(t *testing.T) {
	for _, size := range []int{0, 1, 100, ChunkSize - 1, ChunkSize, ChunkSize + 1, 3 * ChunkSize, 3*ChunkSize + 7} {
		pt := make([]byte, size)
		rand.Read(pt)
		ref := seal(t, pt, size+1)
		if len(ref) != SealedSize(size) {
			t.Errorf("size %d: sealed %d bytes, SealedSize says %d", size, len(ref), SealedSize(size))
		}
		for _, ws := range []int{1, 1000, ChunkSize} {
			if ws == 1 && size > ChunkSize+1 {
				continue
			}
			t.Run(fmt.Sprintf("size=%d/write=%d", size, ws), func(t *testing.T) {
				ct := seal(t, pt, ws)
				if !bytes.Equal(ct, ref) {
					t.Fatal("output depends on write sizes")
				}
				got, err := io.ReadAll(NewReader(newAEAD(t), bytes.NewReader(ct)))
				if err != nil || !bytes.Equal(got, pt) {
					t.Fatalf("ReadAll = %d bytes, %v", len(got), err)
				}
				if !bytes.Equal(Seal(newAEAD(t), nil, pt), ref) {
					t.Fatal("Seal and Writer differ")
				}
				got, err = Open(newAEAD(t), []byte("prefix"), ct)
				if err != nil || !bytes.Equal(got, append([]byte("prefix"), pt...)) {
					t.Fatalf("Open = %d bytes, %v", len(got), err)
				}
			})
		}
	}
}

// TestKnownNonces checks the nonce layout against a direct AES-GCM seal.
func TestKnownNonces(t *testing.T) {
	pt := bytes.Repeat([]byte{1}, ChunkSize+3)
	ct := seal(t, pt, len(pt))
	a := newAEAD(t)
	n0 := make([]byte, 12)
	n1 := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}
	want := append(a.Seal(nil, n0, pt[:ChunkSize], nil), a.Seal(nil, n1, pt[ChunkSize:], nil)...)
	if !bytes.Equal(ct, want) {
		t.Fatal("chunks are not sealed with I2OSP(counter, 11) || last flag")
	}
}

func TestReaderErrors(t *testing.T) {
	pt := make([]byte, 2*ChunkSize+10)
	ct := seal(t, pt, len(pt))
	c := ChunkSize + overhead
	empty := seal(t, nil, 1)
	for _, tc := range []struct {
		name string
		ct   []byte
		want error
	}{
		{"empty-input", nil, errs.Truncated},
		{"short-chunk", ct[:10], errs.Authentication},
		{"cut-at-boundary", ct[:2*c], errs.Truncated},
		{"cut-after-one", ct[:c], errs.Truncated},
		{"cut-in-chunk", ct[:c+100], errs.Authentication},
		{"extra-byte", append(bytes.Clone(ct), 0), errs.Authentication},
		{"flip", func() []byte { b := bytes.Clone(ct); b[c+5] ^= 1; return b }(), errs.Authentication},
		{"reorder", append(append(bytes.Clone(ct[c:2*c]), ct[:c]...), ct[2*c:]...), errs.Authentication},
		{"empty-last-after-data", append(bytes.Clone(ct[:c]), emptyLast(t, 1)...), errs.Malformed},
		{"empty-payload-flipped", func() []byte { b := bytes.Clone(empty); b[0] ^= 1; return b }(), errs.Authentication},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := io.ReadAll(NewReader(newAEAD(t), bytes.NewReader(tc.ct)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
			if all, err := Open(newAEAD(t), nil, tc.ct); !errors.Is(err, tc.want) || all != nil {
				t.Fatalf("Open = %d bytes, %v; want nil, %v", len(all), err, tc.want)
			}
			if len(got) > 0 && !bytes.Equal(got, pt[:len(got)]) {
				t.Fatal("unauthenticated plaintext released")
			}
		})
	}
}

// TestTruncatedInsideLastChunk: a payload cut inside its last chunk is a
// chunk that does not open (authentication), on both sides of the 16-byte
// tag; only a payload that ends at a chunk boundary before its last chunk
// (with no chunk at all, or after a full chunk sealed as a middle one) is
// truncated (docs/FORMAT.md, rule 15).
func TestTruncatedInsideLastChunk(t *testing.T) {
	one := seal(t, []byte("a payload in one chunk"), 100)
	two := seal(t, make([]byte, ChunkSize+30), 1000)
	c := ChunkSize + overhead
	for _, tc := range []struct {
		name string
		ct   []byte
		want error
	}{
		{"one chunk, 1 byte left", one[:1], errs.Authentication},
		{"one chunk, 15 bytes left", one[:15], errs.Authentication},
		{"one chunk, 16 bytes left", one[:16], errs.Authentication},
		{"one chunk, 17 bytes left", one[:17], errs.Authentication},
		{"after a full chunk, 1 byte left", two[:c+1], errs.Authentication},
		{"after a full chunk, 15 bytes left", two[:c+15], errs.Authentication},
		{"after a full chunk, 16 bytes left", two[:c+16], errs.Authentication},
		{"no chunk", nil, errs.Truncated},
		{"after a full chunk, none left", two[:c], errs.Truncated},
	} {
		for _, workers := range []int{1, 4} {
			_, err := io.ReadAll(NewParallelReader(newAEAD(t), bytes.NewReader(tc.ct), workers))
			if !errors.Is(err, tc.want) {
				t.Errorf("%s, %d workers: Reader: %v, want %v", tc.name, workers, err, tc.want)
			}
			if _, err := OpenParallel(newAEAD(t), nil, tc.ct, workers); !errors.Is(err, tc.want) {
				t.Errorf("%s, %d workers: Open: %v, want %v", tc.name, workers, err, tc.want)
			}
		}
	}
}

// emptyLast returns an empty chunk sealed as the last, at position counter.
func emptyLast(t *testing.T, counter uint64) []byte {
	var n [12]byte
	nonce(&n, counter, true)
	return newAEAD(t).Seal(nil, n[:], nil, nil)
}

func TestWriteAfterClose(t *testing.T) {
	w := NewWriter(newAEAD(t), io.Discard)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Fatal("Write after Close succeeded")
	}
}

func FuzzReader(f *testing.F) {
	f.Add(seal(f, []byte("hello"), 5))
	f.Add(seal(f, make([]byte, ChunkSize+1), 100))
	f.Fuzz(func(t *testing.T, ct []byte) {
		streamed, err := io.ReadAll(NewReader(newAEAD(t), bytes.NewReader(ct)))
		all, err2 := Open(newAEAD(t), nil, ct)
		if (err == nil) != (err2 == nil) || err == nil && !bytes.Equal(streamed, all) {
			t.Fatalf("Reader (%v) and Open (%v) disagree", err, err2)
		}
		if err != nil && !errors.Is(err, errs.Truncated) && !errors.Is(err, errs.Authentication) && !errors.Is(err, errs.Malformed) {
			t.Fatalf("undocumented error %v", err)
		}
	})
}
