//go:build amd64 && !purego

package mlkem768

import (
	"crypto/rand"

	"github.com/fanseal/fanseal/internal/mlkemavx"
)

// avxAvailable reports whether fanseal's own ML-KEM-768 runs here:
// amd64 with AVX-512F and AVX-512BW.
func avxAvailable() bool { return mlkemavx.Available() }

// avxImplementation is internal/mlkemavx, fanseal's ML-KEM-768 for
// AVX-512.
type avxImplementation struct{}

func (avxImplementation) name() string { return "avx512" }

func (avxImplementation) newEncapsulationKey(b []byte) (encapsulator, error) {
	k, err := mlkemavx.NewEncapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return avxEK{k}, nil
}

func (avxImplementation) newDecapsulationKey(seed []byte) decapsulator {
	return avxDK{mlkemavx.NewDecapsulationKey((*[SeedSize]byte)(seed))}
}

type avxEK struct{ k *mlkemavx.EncapsulationKey }

func (e avxEK) encapsulate(m []byte) (ss, ct []byte, err error) {
	var rnd [32]byte
	if m == nil {
		rand.Read(rnd[:]) // never fails (crypto/rand)
	} else {
		copy(rnd[:], m)
	}
	var s [SharedKeySize]byte
	var c [CiphertextSize]byte
	e.k.Encapsulate(&s, &c, &rnd)
	clear(rnd[:])
	return s[:], c[:], nil
}

type avxDK struct{ k *mlkemavx.DecapsulationKey }

func (d avxDK) decapsulate(ct []byte) []byte {
	var ss [SharedKeySize]byte
	d.k.Decapsulate(&ss, (*[CiphertextSize]byte)(ct))
	return ss[:]
}

func (d avxDK) encapsulationKey() encapsulator { return avxEK{d.k.EncapsulationKey()} }

func (d avxDK) encapsulationKeyBytes() []byte { return d.k.EncapsulationKey().Bytes(nil) }

func (d avxDK) decapsulateBatch(cts [][]byte) [][]byte {
	ss := make([][]byte, len(cts))
	keys := make([][SharedKeySize]byte, len(cts))
	var out [mlkemavx.MaxBatch]*[SharedKeySize]byte
	var in [mlkemavx.MaxBatch]*[CiphertextSize]byte
	for start := 0; start < len(cts); start += mlkemavx.MaxBatch {
		n := min(len(cts)-start, mlkemavx.MaxBatch)
		for i := range n {
			out[i], in[i] = &keys[start+i], (*[CiphertextSize]byte)(cts[start+i])
			ss[start+i] = keys[start+i][:]
		}
		d.k.DecapsulateBatch(out[:n], in[:n])
	}
	return ss
}
