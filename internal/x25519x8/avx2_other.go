//go:build !amd64 || purego

package x25519x8

// availableEngines: without the vector code, crypto/ecdh only.
func availableEngines() []engineID { return []engineID{engineGeneric} }

// vecOps and the functions below stand for the vector engines of
// avx2_amd64.go, which this build does not have.
type vecOps struct{}

var opsAVX2, opsAVX512 vecOps

func opsWide(n int) *vecOps { return &opsAVX512 }

func scalarMultVec(ops *vecOps, dst, scalars, points *[Lanes][32]byte, n int) {
	panic("x25519x8: no vector code in this build")
}

func scalarBaseMultVec(ops *vecOps, dst, scalars *[Lanes][32]byte, n int) {
	panic("x25519x8: no vector code in this build")
}

func bothVec(ops *vecOps, pubs, dst, scalars, points *[Lanes][32]byte, n int) {
	panic("x25519x8: no vector code in this build")
}
