//go:build amd64 && !purego

package hpke

import (
	"crypto/fips140"

	circlx25519 "github.com/cloudflare/circl/dh/x25519"
	"golang.org/x/sys/cpu"
)

// fastX25519 reports whether circl's X25519 runs its BMI2 and ADX
// assembly here, and FIPS 140-3 mode (the validated module only) is off.
func fastX25519() bool { return cpu.X86.HasBMI2 && cpu.X86.HasADX && !fips140.Enabled() }

// circlX25519 returns X25519(scalar, u) by circl's ladder. circl's own
// verdict on u (a list of low-order points) is not used: x25519One checks
// the output, as crypto/ecdh does.
func circlX25519(scalar, u *[32]byte) (out [32]byte) {
	var k, p, s circlx25519.Key = *scalar, *u, circlx25519.Key{}
	circlx25519.Shared(&s, &k, &p)
	clear(k[:])
	return s
}
