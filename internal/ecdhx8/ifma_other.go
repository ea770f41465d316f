//go:build !amd64 || purego

package ecdhx8

// availableEngines: without the vector code, the portable path only.
func availableEngines() []engineID { return []engineID{engineGeneric} }

func ecdhVec(e engineID, c Curve, dst *[Lanes][32]byte, scalars *[Lanes][32]byte, points *[Lanes][]byte, n int) [Lanes]error {
	panic("ecdhx8: no vector code in this build")
}

func publicKeysVec(e engineID, c Curve, dst *[Lanes][65]byte, scalars *[Lanes][32]byte, n int) [Lanes]error {
	panic("ecdhx8: no vector code in this build")
}

func parsePointsVec(e engineID, c Curve, dst *[Lanes][65]byte, points *[Lanes][]byte, n int) [Lanes]error {
	panic("ecdhx8: no vector code in this build")
}
