//go:build !amd64 || purego

package hpke

// fastX25519 is false: crypto/ecdh runs every X25519 agreement.
func fastX25519() bool { return false }

func circlX25519(scalar, u *[32]byte) [32]byte { panic("hpke: no circl X25519 here") }
