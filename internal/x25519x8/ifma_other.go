//go:build !amd64 || purego

package x25519x8

const hasIFMA = false

func scalarMultIFMA(dst, scalars, points *[Lanes][32]byte, n int) {
	panic("x25519x8: no IFMA code in this build")
}

func scalarBaseMultIFMA(dst, scalars *[Lanes][32]byte, n int) {
	panic("x25519x8: no IFMA code in this build")
}

func bothIFMA(pubs, dst, scalars, points *[Lanes][32]byte, n int) {
	panic("x25519x8: no IFMA code in this build")
}
