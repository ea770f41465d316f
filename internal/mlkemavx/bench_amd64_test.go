//go:build !purego

package mlkemavx

import "testing"

func BenchmarkNTT(b *testing.B) {
	requireAVX512(b)
	var p poly
	for b.Loop() {
		ntt(&p)
		p[0] = 0
	}
}

func BenchmarkInvNTT(b *testing.B) {
	requireAVX512(b)
	var p poly
	for b.Loop() {
		invNTT(&p)
	}
}

func BenchmarkBasemulAcc(b *testing.B) {
	requireAVX512(b)
	var x, y [3]poly
	var out poly
	for b.Loop() {
		basemulAcc(&out, &x, &y)
	}
}
