package stream

import (
	"fmt"
	"io"
	"testing"
)

// BenchmarkWriter seals 64 MiB with 1 and 2 workers, written in pieces of
// 32 KiB (io.Copy from a file), 1 MiB, and 64 MiB (one Write).
func BenchmarkWriter(b *testing.B) {
	pt := make([]byte, 64<<20)
	for _, piece := range []int{32 << 10, 1 << 20, 64 << 20} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("size=64MiB/write=%dKiB/workers=%d", piece>>10, w), func(b *testing.B) {
				benchWriter(b, pt, piece, w)
			})
		}
	}
}

func benchWriter(b *testing.B, pt []byte, piece, w int) {
	a := newAEAD(b)
	b.SetBytes(int64(len(pt)))
	b.ReportAllocs()
	for b.Loop() {
		wc := NewParallelWriter(a, io.Discard, w)
		for off := 0; off < len(pt); off += piece {
			wc.Write(pt[off : off+piece])
		}
		if err := wc.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealParallel seals 64 MiB held in memory with 1 and 2 workers.
func BenchmarkSealParallel(b *testing.B) {
	pt := make([]byte, 64<<20)
	dst := make([]byte, 0, SealedSize(len(pt)))
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("size=64MiB/workers=%d", w), func(b *testing.B) {
			a := newAEAD(b)
			b.SetBytes(int64(len(pt)))
			b.ReportAllocs()
			for b.Loop() {
				SealParallel(a, dst[:0], pt, w)
			}
		})
	}
}
