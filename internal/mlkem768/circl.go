//go:build amd64 && !purego

package mlkem768

import (
	circl "github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"golang.org/x/sys/cpu"
)

// fastAvailable reports whether circl's ML-KEM-768 runs its vector code
// here: amd64 with AVX2 (circl falls back to generic Go without it, slower
// than crypto/mlkem's).
func fastAvailable() bool { return cpu.X86.HasAVX2 }

func fastImplementation() implementation { return circlImplementation{} }

// circlImplementation is cloudflare/circl's ML-KEM-768.
type circlImplementation struct{}

func (circlImplementation) name() string { return "circl" }

func (circlImplementation) newEncapsulationKey(b []byte) (encapsulator, error) {
	var k circl.PublicKey
	// Unpack runs FIPS 203's encapsulation key check (modulus check):
	// it re-encodes the decoded coefficients and compares.
	if err := k.Unpack(b); err != nil {
		return nil, err
	}
	return circlEK{&k}, nil
}

func (circlImplementation) newDecapsulationKey(seed []byte) decapsulator {
	pk, sk := circl.NewKeyFromSeed(seed)
	return circlDK{sk, pk}
}

type circlEK struct{ k *circl.PublicKey }

func (e circlEK) encapsulate(m []byte) (ss, ct []byte, err error) {
	ct, ss = make([]byte, CiphertextSize), make([]byte, SharedKeySize)
	e.k.EncapsulateTo(ct, ss, m) // m nil: circl reads crypto/rand
	return ss, ct, nil
}

type circlDK struct {
	k  *circl.PrivateKey
	pk *circl.PublicKey
}

func (d circlDK) decapsulate(ct []byte) []byte {
	ss := make([]byte, SharedKeySize)
	d.k.DecapsulateTo(ss, ct)
	return ss
}

func (d circlDK) encapsulationKey() encapsulator { return circlEK{d.pk} }

func (d circlDK) encapsulationKeyBytes() []byte {
	b := make([]byte, EncapsulationKeySize)
	d.pk.Pack(b)
	return b
}
