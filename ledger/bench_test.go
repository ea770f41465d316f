package ledger

import (
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"testing"
)

var benchSizes = []int{64, 1024, 16384}

// freshDecrypt is the reference decryption: a new cipher per call.
func freshDecrypt(key, entry, aad []byte) ([]byte, error) {
	b, _ := aes.NewCipher(key)
	g, _ := cipher.NewGCM(b)
	ct := append(append([]byte{}, entry[HeaderSize:]...), entry[:TagSize]...)
	return g.Open(ct[:0], entry[TagSize:HeaderSize], ct, nil)
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
	return []benchCase{
		{"op=encrypt/path=retained", func(dst []byte) { e.Encrypt(dst, pt, nil, txid, WriteSet) }},
		{"op=encrypt/path=fresh", func([]byte) { freshEncrypt(key, pt, nil, txid, WriteSet) }},
		{"op=encrypt/path=bare", func(dst []byte) { bare.Seal(dst, iv[:], pt, nil) }},
		{"op=decrypt/path=retained", func(dst []byte) {
			if _, err := e.Decrypt(dst, entry, nil, txid, WriteSet); err != nil {
				panic(err)
			}
		}},
		{"op=decrypt/path=fresh", func([]byte) {
			if _, err := freshDecrypt(key, entry, nil); err != nil {
				panic(err)
			}
		}},
	}
}

// BenchmarkLedger compares the retained AEAD path with a fresh cipher per
// call, as the ledger did before, and with the bare primitive.
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
