//go:build !amd64 || purego

package ecdhx8

const accelerated = false

func ecdhIFMA(c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) [Lanes]error {
	panic("ecdhx8: no IFMA code in this build")
}

func publicKeysIFMA(c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) [Lanes]error {
	panic("ecdhx8: no IFMA code in this build")
}

func parsePointsIFMA(c Curve, dst *[Lanes][65]byte, points *[Lanes][]byte, n int) [Lanes]error {
	panic("ecdhx8: no IFMA code in this build")
}
