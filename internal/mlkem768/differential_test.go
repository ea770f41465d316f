package mlkem768

import (
	"bytes"
	"crypto/mlkem"
	"crypto/mlkem/mlkemtest"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// q is ML-KEM's modulus.
const q = 3329

var (
	casesFlag = flag.Int("mlkem768.cases", 0, "random cases of TestDifferential (0: 2 000 in -short, 20 000 otherwise; CI's long step runs 1 000 000)")
	seedFlag  = flag.Uint64("mlkem768.seed", 0, "seed of TestDifferential's cases (0: from the clock, printed)")
)

// differentialCases is the number of random cases TestDifferential runs.
func differentialCases() int {
	switch {
	case *casesFlag > 0:
		return *casesFlag
	case testing.Short():
		return 2000
	}
	return 20000
}

// TestDifferential holds every implementation to crypto/mlkem, byte for
// byte and verdict for verdict, on random cases of seven kinds (each case
// one operation on both sides): key generation from a seed; encapsulation
// with fixed randomness (mlkemtest.Encapsulate768) and the decapsulation
// of its ciphertext; decapsulation of a corrupted ciphertext and of a
// random one; a batch decapsulation of such ciphertexts mixed; encapsulation
// keys with one coefficient at or above q (refused) or at q − 1 (accepted,
// then encapsulated to); and random 1184-byte strings as encapsulation
// keys.
func TestDifferential(t *testing.T) {
	n := differentialCases()
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	workers := runtime.GOMAXPROCS(0)
	for _, impl := range implementations() {
		t.Run(impl.name(), func(t *testing.T) {
			start := time.Now()
			var done, failed atomic.Int64
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := newCaseGen(impl, seed, uint64(w))
					for done.Add(1) <= int64(n) && failed.Load() == 0 {
						if err := c.step(); err != nil {
							failed.Add(1)
							t.Errorf("seed %d, worker %d, case %d: %v", seed, w, c.cases, err)
						}
					}
				}()
			}
			wg.Wait()
			t.Logf("%s: %d cases (-mlkem768.seed=%d) in %v", impl.name(), n, seed, time.Since(start).Round(time.Millisecond))
		})
	}
}

// A caseGen draws the cases of one worker from its own ChaCha8 stream.
type caseGen struct {
	impl  implementation
	rng   *rand.Rand
	cases int
	ref   *mlkem.DecapsulationKey768 // the current key pair, both sides
	dk    *DecapsulationKey
	ct    []byte // the last ciphertext encapsulated to it, or nil
}

func newCaseGen(impl implementation, seed, worker uint64) *caseGen {
	var s [32]byte
	binary.LittleEndian.PutUint64(s[:], seed)
	binary.LittleEndian.PutUint64(s[8:], worker)
	return &caseGen{impl: impl, rng: rand.New(rand.NewChaCha8(s))}
}

func (c *caseGen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(c.rng.Uint32())
	}
	return b
}

// step runs one case. Every 16th case, and the first, is a key generation
// whose key pair the next ones use.
func (c *caseGen) step() error {
	c.cases++
	if c.ref == nil || c.rng.IntN(16) == 0 {
		return c.keygen()
	}
	if c.rng.IntN(32) == 0 {
		return c.decapsulateBatch()
	}
	switch k := c.rng.IntN(10); {
	case k < 3:
		return c.encapsulate(c.ref.EncapsulationKey().Bytes())
	case k < 6:
		return c.decapsulateCorrupted()
	case k < 7:
		return c.decapsulate(c.bytes(CiphertextSize))
	case k < 9:
		return c.coefficient()
	default:
		return c.parse(c.bytes(EncapsulationKeySize))
	}
}

func (c *caseGen) keygen() error {
	seed := c.bytes(SeedSize)
	ref, err := mlkem.NewDecapsulationKey768(seed)
	if err != nil {
		return err
	}
	dk, err := newDecapsulationKey(c.impl, seed)
	if err != nil {
		return err
	}
	if !bytes.Equal(dk.EncapsulationKey().Bytes(), ref.EncapsulationKey().Bytes()) {
		return fmt.Errorf("keygen(%x): encapsulation keys differ", seed)
	}
	if !bytes.Equal(dk.Bytes(), ref.Bytes()) {
		return fmt.Errorf("keygen(%x): seeds differ", seed)
	}
	c.ref, c.dk, c.ct = ref, dk, nil
	return nil
}

// encapsulate parses ekb on both sides, encapsulates with the same
// randomness and, if ekb is the current key's, decapsulates the result.
func (c *caseGen) encapsulate(ekb []byte) error {
	m := c.bytes(32)
	refEK, err := mlkem.NewEncapsulationKey768(ekb)
	if err != nil {
		return fmt.Errorf("crypto/mlkem refuses %x: %v", ekb, err)
	}
	ek, err := newEncapsulationKey(c.impl, ekb)
	if err != nil {
		return fmt.Errorf("refused %x, which crypto/mlkem accepts: %v", ekb, err)
	}
	refSS, refCT, err := mlkemtest.Encapsulate768(refEK, m)
	if err != nil {
		return err
	}
	ss, ct, err := ek.EncapsulateDerand(m)
	if err != nil {
		return err
	}
	if !bytes.Equal(ss, refSS) || !bytes.Equal(ct, refCT) {
		return fmt.Errorf("encapsulate(%x, m=%x) differs", ekb, m)
	}
	if !bytes.Equal(ekb, c.ref.EncapsulationKey().Bytes()) {
		return nil
	}
	got, err := c.dk.Decapsulate(ct)
	if err != nil || !bytes.Equal(got, refSS) {
		return fmt.Errorf("decapsulate(encapsulate(m=%x)) = %x, %v; want %x", m, got, err, refSS)
	}
	c.ct = ct
	return nil
}

// decapsulateCorrupted corrupts the last valid ciphertext of the current
// key (made and checked by an encapsulation case, run first if there is
// none).
func (c *caseGen) decapsulateCorrupted() error {
	if c.ct == nil {
		if err := c.encapsulate(c.ref.EncapsulationKey().Bytes()); err != nil {
			return err
		}
	}
	ct := bytes.Clone(c.ct)
	switch c.rng.IntN(4) {
	case 0: // one bit
		i := c.rng.IntN(len(ct) * 8)
		ct[i/8] ^= 1 << (i % 8)
	case 1: // one byte
		ct[c.rng.IntN(len(ct))] ^= byte(1 + c.rng.IntN(255))
	case 2: // the last byte (the end of the compressed v)
		ct[len(ct)-1] ^= byte(1 + c.rng.IntN(255))
	default: // a run of bytes
		i := c.rng.IntN(len(ct))
		for j := i; j < len(ct) && j < i+1+c.rng.IntN(64); j++ {
			ct[j] = byte(c.rng.Uint32())
		}
	}
	return c.decapsulate(ct)
}

func (c *caseGen) decapsulate(ct []byte) error {
	want, err := c.ref.Decapsulate(ct)
	if err != nil {
		return err
	}
	got, err := c.dk.Decapsulate(ct)
	if err != nil || !bytes.Equal(got, want) {
		return fmt.Errorf("decapsulate(%x) = %x, %v; crypto/mlkem's %x", ct, got, err, want)
	}
	return nil
}

// decapsulateBatch decapsulates one to ten ciphertexts of the current
// key at once (up to one more than the engine's batches of eight),
// valid ones, corrupted ones and random bytes mixed, and compares each
// with crypto/mlkem's decapsulation of it.
func (c *caseGen) decapsulateBatch() error {
	cts := make([][]byte, 1+c.rng.IntN(10))
	for i := range cts {
		_, ct, err := mlkemtest.Encapsulate768(c.ref.EncapsulationKey(), c.bytes(32))
		if err != nil {
			return err
		}
		switch c.rng.IntN(3) {
		case 1:
			j := c.rng.IntN(len(ct) * 8)
			ct[j/8] ^= 1 << (j % 8)
		case 2:
			ct = c.bytes(CiphertextSize)
		}
		cts[i] = ct
	}
	got, err := c.dk.DecapsulateBatch(cts)
	if err != nil {
		return err
	}
	for i, ct := range cts {
		want, err := c.ref.Decapsulate(ct)
		if err != nil {
			return err
		}
		if !bytes.Equal(got[i], want) {
			return fmt.Errorf("batch of %d: decapsulate(%x) = %x; crypto/mlkem's %x", len(cts), ct, got[i], want)
		}
	}
	return nil
}

// coefficient sets one coefficient of the current encapsulation key to a
// value at or above q, which both sides must refuse, or to q − 1, which
// both must accept and encapsulate to alike.
func (c *caseGen) coefficient() error {
	ekb := bytes.Clone(c.ref.EncapsulationKey().Bytes())
	i := c.rng.IntN(768)
	var v uint16
	switch c.rng.IntN(4) {
	case 0:
		v = q
	case 1:
		v = 4095
	case 2:
		v = q - 1
	default:
		v = q + uint16(c.rng.IntN(4096-q))
	}
	setCoefficient(ekb, i, v)
	if v < q {
		return c.encapsulate(ekb)
	}
	return c.parse(ekb)
}

// setCoefficient sets the i-th 12-bit coefficient of ByteEncode_12(t̂).
func setCoefficient(ekb []byte, i int, v uint16) {
	b := ekb[3*(i/2):]
	if i%2 == 0 {
		b[0] = byte(v)
		b[1] = b[1]&0xf0 | byte(v>>8)
	} else {
		b[1] = b[1]&0x0f | byte(v<<4)
		b[2] = byte(v >> 4)
	}
}

// parse compares the verdicts on ekb.
func (c *caseGen) parse(ekb []byte) error {
	_, refErr := mlkem.NewEncapsulationKey768(ekb)
	_, err := newEncapsulationKey(c.impl, ekb)
	if (err == nil) != (refErr == nil) {
		return fmt.Errorf("parse(%x): %v; crypto/mlkem: %v", ekb, err, refErr)
	}
	if err == nil {
		return c.encapsulate(ekb)
	}
	return nil
}

// TestWrongLengths checks the lengths each operation refuses.
func TestWrongLengths(t *testing.T) {
	for _, impl := range implementations() {
		for _, n := range []int{0, EncapsulationKeySize - 1, EncapsulationKeySize + 1} {
			if _, err := newEncapsulationKey(impl, make([]byte, n)); err == nil {
				t.Errorf("%s: encapsulation key of %d bytes accepted", impl.name(), n)
			}
		}
		for _, n := range []int{0, 32, SeedSize - 1, SeedSize + 1} {
			if _, err := newDecapsulationKey(impl, make([]byte, n)); err == nil {
				t.Errorf("%s: seed of %d bytes accepted", impl.name(), n)
			}
		}
		dk, err := newDecapsulationKey(impl, make([]byte, SeedSize))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, CiphertextSize - 1, CiphertextSize + 1} {
			if _, err := dk.Decapsulate(make([]byte, n)); err == nil {
				t.Errorf("%s: ciphertext of %d bytes accepted", impl.name(), n)
			}
		}
		for _, n := range []int{0, CiphertextSize - 1, CiphertextSize + 1} {
			good := make([]byte, CiphertextSize)
			if ss, err := dk.DecapsulateBatch([][]byte{good, make([]byte, n), good}); err == nil || ss != nil {
				t.Errorf("%s: batch with a ciphertext of %d bytes accepted", impl.name(), n)
			}
		}
		for _, n := range []int{0, 31, 33} {
			if _, _, err := dk.EncapsulationKey().EncapsulateDerand(make([]byte, n)); err == nil {
				t.Errorf("%s: encapsulation randomness of %d bytes accepted", impl.name(), n)
			}
		}
		ss, ct := dk.EncapsulationKey().Encapsulate()
		if got, err := dk.Decapsulate(ct); err != nil || !bytes.Equal(got, ss) {
			t.Errorf("%s: Decapsulate(Encapsulate()) = %x, %v; want %x", impl.name(), got, err, ss)
		}
	}
}
