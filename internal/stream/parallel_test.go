package stream

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func sealWith(t testing.TB, pt []byte, workers, writeSize int) []byte {
	var buf bytes.Buffer
	w := NewParallelWriter(newAEAD(t), &buf, workers)
	for rest := pt; len(rest) > 0; {
		n := min(writeSize, len(rest))
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParallelIdentical checks that every worker count produces the
// sequential bytes, and that the parallel readers open them.
func TestParallelIdentical(t *testing.T) {
	for _, size := range []int{0, 1, ChunkSize, ChunkSize + 1, 3 * ChunkSize, 7*ChunkSize + 5} {
		pt := make([]byte, size)
		rand.Read(pt)
		ref := seal(t, pt, size+1)
		for _, workers := range []int{2, 3, 8} {
			t.Run(fmt.Sprintf("size=%d/workers=%d", size, workers), func(t *testing.T) {
				for _, ws := range []int{1000, ChunkSize, 3*ChunkSize + 1} {
					if got := sealWith(t, pt, workers, ws); !bytes.Equal(got, ref) {
						t.Fatalf("write size %d: output differs from the sequential writer", ws)
					}
				}
				if got := SealParallel(newAEAD(t), nil, pt, workers); !bytes.Equal(got, ref) {
					t.Fatal("SealParallel differs")
				}
				got, err := io.ReadAll(NewParallelReader(newAEAD(t), bytes.NewReader(ref), workers))
				if err != nil || !bytes.Equal(got, pt) {
					t.Fatalf("parallel reader: %v", err)
				}
				got, err = OpenParallel(newAEAD(t), nil, ref, workers)
				if err != nil || !bytes.Equal(got, pt) {
					t.Fatalf("OpenParallel: %v", err)
				}
			})
		}
	}
}

// TestParallelErrors checks that the parallel readers report what the
// sequential one does, and release nothing past a bad chunk.
func TestParallelErrors(t *testing.T) {
	pt := make([]byte, 4*ChunkSize+10)
	rand.Read(pt)
	ct := seal(t, pt, len(pt))
	c := ChunkSize + overhead
	cases := map[string][]byte{
		"cut-at-boundary": ct[:3*c],
		"cut-in-chunk":    ct[:2*c+7],
		"flip-middle":     func() []byte { b := bytes.Clone(ct); b[2*c+1] ^= 1; return b }(),
		"swap":            append(append(append(bytes.Clone(ct[:c]), ct[2*c:3*c]...), ct[c:2*c]...), ct[3*c:]...),
		"empty":           nil,
	}
	for name, bad := range cases {
		_, want := io.ReadAll(NewReader(newAEAD(t), bytes.NewReader(bad)))
		for _, workers := range []int{2, 4} {
			got, err := io.ReadAll(NewParallelReader(newAEAD(t), bytes.NewReader(bad), workers))
			if want == nil || err == nil || err.Error() != want.Error() {
				t.Fatalf("%s/workers=%d: parallel reader error %v, sequential %v", name, workers, err, want)
			}
			if !bytes.Equal(got, pt[:len(got)]) {
				t.Fatalf("%s: released bytes that are not the plaintext", name)
			}
			if out, err := OpenParallel(newAEAD(t), nil, bad, workers); out != nil || err == nil || err.Error() != want.Error() {
				t.Fatalf("%s/workers=%d: OpenParallel error %v, sequential %v", name, workers, err, want)
			}
		}
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// TestParallelWriterError stops cleanly (no goroutine left, checked by
// goleak) when the destination fails.
func TestParallelWriterError(t *testing.T) {
	for _, piece := range []int{10000, 20 * ChunkSize} { // the pipeline, and whole chunks at once
		w := NewParallelWriter(newAEAD(t), &failingWriter{n: 2}, 4)
		var err error
		for i := 0; i < 100 && err == nil; i++ {
			_, err = w.Write(make([]byte, piece))
		}
		if err == nil {
			err = w.Close()
		}
		if err == nil || err.Error() != "disk full" {
			t.Fatalf("write size %d: error = %v", piece, err)
		}
		if _, err := w.Write([]byte("x")); err == nil {
			t.Fatal("write after a failure succeeded")
		}
	}
}

// TestParallelWriterAbandoned: a writer dropped without Close, with chunks
// in flight, leaves no goroutine behind once they are sealed.
func TestParallelWriterAbandoned(t *testing.T) {
	for _, piece := range []int{10000, 3 * ChunkSize} { // the pipeline, and whole chunks at once
		w := NewParallelWriter(newAEAD(t), io.Discard, 4)
		for range 20 {
			if _, err := w.Write(make([]byte, piece)); err != nil {
				t.Fatal(err)
			}
		}
	}
	goleak.VerifyNone(t)
}
