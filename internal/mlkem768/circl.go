//go:build amd64 && !purego

package mlkem768

import (
	circl "github.com/cloudflare/circl/kem/mlkem/mlkem768"
	"golang.org/x/sys/cpu"
)

// circlAvailable reports whether circl's ML-KEM-768 runs its vector code
// here: amd64 with AVX2 (circl falls back to generic Go without it, slower
// than crypto/mlkem's).
func circlAvailable() bool { return cpu.X86.HasAVX2 }

// fastImplementations returns the implementations faster than
// crypto/mlkem that run here, fastest first: fanseal's own with AVX-512,
// circl's with AVX2.
func fastImplementations() []implementation {
	var impls []implementation
	if avxAvailable() {
		impls = append(impls, avxImplementation{})
	}
	if circlAvailable() {
		impls = append(impls, circlImplementation{})
	}
	return impls
}

// vzeroupper runs VZEROUPPER. circl's AVX2 assembly returns with the upper
// halves of the YMM registers dirty (it never runs VZEROUPPER), and on
// Intel cores every legacy-SSE instruction after that pays for the merge
// with the dirty state until something clears it: Go's SHA-NI SHA-256,
// its AES-GCM and the compiler's own SSE moves ran up to 100 times slower
// after a circl call (SHA-256 of 4 KiB: 250 µs instead of 2.3 µs here,
// TestCirclLeavesUpperStateClean), which made a hybrid open slower than
// crypto/hpke's. Every circl call below is followed by it. It is the one
// instruction of assembly in this package; only amd64 CPUs with AVX2 run
// circl, so only they run it. (In circl v1.6.5 parsing and key generation
// happen to end clean already, with a bytes.Equal and a Pack of ours
// after them; their calls are kept for the next version.)
//
//go:noescape
func vzeroupper()

// circlImplementation is cloudflare/circl's ML-KEM-768.
type circlImplementation struct{}

func (circlImplementation) name() string { return "circl" }

func (circlImplementation) newEncapsulationKey(b []byte) (encapsulator, error) {
	var k circl.PublicKey
	// Unpack runs FIPS 203's encapsulation key check (modulus check):
	// it re-encodes the decoded coefficients and compares.
	err := k.Unpack(b)
	vzeroupper()
	if err != nil {
		return nil, err
	}
	return circlEK{&k}, nil
}

func (circlImplementation) newDecapsulationKey(seed []byte) decapsulator {
	pk, sk := circl.NewKeyFromSeed(seed)
	vzeroupper()
	return circlDK{sk, pk}
}

type circlEK struct{ k *circl.PublicKey }

func (e circlEK) encapsulate(m []byte) (ss, ct []byte, err error) {
	ct, ss = make([]byte, CiphertextSize), make([]byte, SharedKeySize)
	e.k.EncapsulateTo(ct, ss, m) // m nil: circl reads crypto/rand
	vzeroupper()
	return ss, ct, nil
}

type circlDK struct {
	k  *circl.PrivateKey
	pk *circl.PublicKey
}

func (d circlDK) decapsulate(ct []byte) []byte {
	ss := make([]byte, SharedKeySize)
	d.k.DecapsulateTo(ss, ct)
	vzeroupper()
	return ss
}

func (d circlDK) encapsulationKey() encapsulator { return circlEK{d.pk} }

func (d circlDK) encapsulationKeyBytes() []byte {
	b := make([]byte, EncapsulationKeySize)
	d.pk.Pack(b)
	vzeroupper()
	return b
}
