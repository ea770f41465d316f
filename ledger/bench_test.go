package ledger

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"testing"

	"github.com/fanseal/fanseal/internal/race"
)

var benchSizes = []int{64, 1024, 16384}

// freshSeal and freshOpen are the baseline the retained path is measured
// against: what a competent caller without retained ciphers writes, a new
// AES-GCM per call (key expansion and GHASH tables) sealing into, or
// opening into, the caller's buffer. They allocate only what building
// the cipher allocates (TestFreshBaselineAllocations).
func freshSeal(dst, key, iv, plaintext, aad []byte) []byte {
	b, _ := aes.NewCipher(key)
	g, _ := cipher.NewGCM(b)
	return g.Seal(dst[:0], iv, plaintext, aad)
}

func freshOpen(dst, key, iv, sealed, aad []byte) ([]byte, error) {
	b, _ := aes.NewCipher(key)
	g, _ := cipher.NewGCM(b)
	return g.Open(dst[:0], iv, sealed, aad)
}

type benchCase struct {
	name string
	run  func(dst []byte) // one operation, writing into dst
}

// ledgerCases returns, for one size, every op/path pair measured: the
// retained and fresh paths of both operations, and the bare retained
// cipher.AEAD seal that the retained encrypt is compared against.
func ledgerCases(b *testing.B, size int) []benchCase {
	key := make([]byte, KeySize)
	s, _ := NewSecrets(0, key)
	e := NewEncryptor(s)
	pt := make([]byte, size)
	txid := TxID{View: 3, Seqno: 12345}
	entry, err := e.Encrypt(nil, pt, nil, txid, WriteSet)
	if err != nil {
		b.Fatal(err)
	}
	blk, _ := aes.NewCipher(key)
	bare, _ := cipher.NewGCM(blk)
	iv, _ := IV(txid, WriteSet)
	sealed := bare.Seal(nil, iv[:], pt, nil) // ciphertext || tag, as Open wants it
	return []benchCase{
		{"op=encrypt/path=retained", func(dst []byte) { e.Encrypt(dst, pt, nil, txid, WriteSet) }},
		{"op=encrypt/path=fresh", func(dst []byte) { freshSeal(dst, key, iv[:], pt, nil) }},
		{"op=encrypt/path=bare", func(dst []byte) { bare.Seal(dst, iv[:], pt, nil) }},
		{"op=decrypt/path=retained", func(dst []byte) {
			if _, err := e.Decrypt(dst, entry, nil, txid, WriteSet); err != nil {
				panic(err)
			}
		}},
		{"op=decrypt/path=fresh", func(dst []byte) {
			if _, err := freshOpen(dst, key, iv[:], sealed, nil); err != nil {
				panic(err)
			}
		}},
	}
}

// TestFreshBaselineAllocations checks that the fresh baseline allocates
// exactly what re-keying (aes.NewCipher and cipher.NewGCM) allocates, so
// the ratio to the retained path measures re-keying and nothing else.
func TestFreshBaselineAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	key := make([]byte, KeySize)
	pt := make([]byte, 1024)
	iv := make([]byte, IVSize)
	dst := make([]byte, 0, len(pt)+2*HeaderSize)
	rekey := testing.AllocsPerRun(100, func() {
		b, _ := aes.NewCipher(key)
		cipher.NewGCM(b)
	})
	sealed := freshSeal(nil, key, iv, pt, nil)
	if n := testing.AllocsPerRun(100, func() { freshSeal(dst, key, iv, pt, nil) }); n != rekey {
		t.Errorf("fresh seal allocates %.0f times, re-keying %.0f", n, rekey)
	}
	if n := testing.AllocsPerRun(100, func() { freshOpen(dst, key, iv, sealed, nil) }); n != rekey {
		t.Errorf("fresh open allocates %.0f times, re-keying %.0f", n, rekey)
	}
}

// BenchmarkLedger compares the retained AEAD path with a fresh cipher per
// call (freshSeal, freshOpen) and with the bare retained primitive.
func BenchmarkLedger(b *testing.B) {
	for _, size := range benchSizes {
		for _, c := range ledgerCases(b, size) {
			b.Run(fmt.Sprintf("%s/size=%d", c.name, size), func(b *testing.B) {
				dst := make([]byte, 0, size+2*HeaderSize)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					c.run(dst)
				}
			})
		}
	}
}

// BenchmarkLedgerParallel runs the same operations from GOMAXPROCS
// goroutines sharing one Encryptor (one retained AEAD per secret).
func BenchmarkLedgerParallel(b *testing.B) {
	for _, size := range benchSizes {
		for _, c := range ledgerCases(b, size) {
			b.Run(fmt.Sprintf("%s/size=%d", c.name, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					dst := make([]byte, 0, size+2*HeaderSize)
					for pb.Next() {
						c.run(dst)
					}
				})
			})
		}
	}
}
