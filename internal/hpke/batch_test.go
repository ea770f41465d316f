package hpke

import (
	"bytes"
	"crypto/ecdh"
	"crypto/elliptic"
	stdhpke "crypto/hpke"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/fanseal/fanseal/internal/ecdhx8"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// batchKeys returns n recipient key pairs of kem, the key at position bad
// (if in range) replaced by the low-order point 0 for X25519.
func batchKeys(t *testing.T, kem *KEM, n, bad int) ([]*PrivateKey, []*PublicKey) {
	t.Helper()
	sks := make([]*PrivateKey, n)
	pks := make([]*PublicKey, n)
	for i := range n {
		sks[i], _ = kem.GenerateKey()
		raw := sks[i].PublicKey()
		if i == bad {
			raw = make([]byte, 32)
		}
		var err error
		if pks[i], err = kem.NewPublicKey(raw); err != nil {
			t.Fatal(err)
		}
	}
	return sks, pks
}

var batchKEMs = []*KEM{X25519(), P256(), Secp256k1()}

// TestEncapShared compares each batched shared secret with Decap by the
// recipient, for every batch size, and checks that a low-order key fails
// alone, at its index.
func TestEncapShared(t *testing.T) {
	for _, kem := range batchKEMs {
		for n := 1; n <= MaxBatch; n++ {
			t.Run(fmt.Sprintf("kem=%04x/n=%d/batches=%v", kem.ID(), n, kem.Batches()), func(t *testing.T) {
				bad := -1
				if kem == X25519() {
					bad = n / 2
				}
				sks, pks := batchKeys(t, kem, n, bad)
				eph, _ := kem.GenerateKey()
				ss, errs := kem.EncapShared(eph, pks)
				for i := range n {
					if i == bad {
						if errs == nil || !errors.Is(errs[i], ErrInvalidKey) || ss[i] != nil {
							t.Fatalf("low-order key %d: error %v", i, errs)
						}
						continue
					}
					if errs != nil && errs[i] != nil {
						t.Fatalf("key %d: %v", i, errs[i])
					}
					want, err := kem.Decap(eph.PublicKey(), sks[i])
					if err != nil || !bytes.Equal(ss[i], want) {
						t.Fatalf("key %d: shared secret %x, Decap says %x (%v)", i, ss[i], want, err)
					}
				}
			})
		}
	}
}

// TestEncapFresh opens a context made from each batched secret with
// crypto/hpke (X25519, P-256) or with Decap, whose agreement is decred's
// (secp256k1), from the encapsulated key alone.
func TestEncapFresh(t *testing.T) {
	curves := map[*KEM]ecdh.Curve{X25519(): ecdh.X25519(), P256(): ecdh.P256(), Secp256k1(): nil}
	for kem, curve := range curves {
		for n := 1; n <= MaxBatch; n++ {
			t.Run(fmt.Sprintf("kem=%04x/n=%d/batches=%v", kem.ID(), n, kem.Batches()), func(t *testing.T) {
				bad := -1
				if kem == X25519() {
					bad = n - 1
				}
				sks, pks := batchKeys(t, kem, n, bad)
				encs, ss, errs := kem.EncapFresh(pks)
				suite, _ := NewSuite(kem, AEADAES256GCM)
				info := []byte("batch")
				seen := map[string]bool{}
				for i := range n {
					if i == bad {
						if errs == nil || !errors.Is(errs[i], ErrInvalidKey) {
							t.Fatalf("low-order key %d: error %v", i, errs)
						}
						continue
					}
					if errs != nil && errs[i] != nil {
						t.Fatalf("key %d: %v", i, errs[i])
					}
					if seen[string(encs[i])] {
						t.Fatalf("ephemeral key %x used twice", encs[i])
					}
					seen[string(encs[i])] = true
					if curve == nil {
						want, err := kem.Decap(encs[i], sks[i])
						if err != nil || !bytes.Equal(ss[i], want) {
							t.Fatalf("key %d: shared secret %x, Decap says %x (%v)", i, ss[i], want, err)
						}
						continue
					}
					ctx, _ := suite.NewContext(ss[i], suite.ScheduleContext(info))
					ct, _ := ctx.Seal(nil, []byte("aad"), []byte("file key"))
					priv, _ := curve.NewPrivateKey(sks[i].Bytes())
					sk, _ := stdhpke.NewDHKEMPrivateKey(priv)
					a, _ := stdhpke.NewAEAD(AEADAES256GCM)
					r, err := stdhpke.NewRecipient(encs[i], sk, stdhpke.HKDFSHA256(), a, info)
					if err != nil {
						t.Fatal(err)
					}
					if pt, err := r.Open([]byte("aad"), ct); err != nil || string(pt) != "file key" {
						t.Fatalf("key %d: crypto/hpke Open = %q, %v", i, pt, err)
					}
				}
			})
		}
	}
}

// TestBatches: the batch methods run in passes for every KEM on a CPU
// with a vector engine for it, and one at a time elsewhere; a pass's cost
// is its engine's, in agreements one at a time (X25519's against circl's
// ladder where that runs: at least one), 1 where k does not batch; a batch
// is one pass of the engine.
func TestBatches(t *testing.T) {
	for kem, want := range map[*KEM]bool{X25519(): x25519x8.Accelerated(), P256(): ecdhx8.Accelerated(), Secp256k1(): ecdhx8.Accelerated()} {
		if kem.Batches() != want {
			t.Errorf("KEM %04x: Batches() = %v, want %v", kem.ID(), kem.Batches(), want)
		}
		if !want && kem.PassCost() != 1 {
			t.Errorf("KEM %04x: PassCost() = %v without batches", kem.ID(), kem.PassCost())
		}
	}
	if P256().Batches() && (P256().PassCost() != ecdhx8.PassCost(ecdhx8.P256) || Secp256k1().PassCost() != ecdhx8.PassCost(ecdhx8.Secp256k1)) {
		t.Errorf("pass costs %v and %v, ecdhx8's %v and %v", P256().PassCost(), Secp256k1().PassCost(), ecdhx8.PassCost(ecdhx8.P256), ecdhx8.PassCost(ecdhx8.Secp256k1))
	}
	if X25519().Batches() && X25519().PassCost() < x25519x8.PassCost() {
		t.Errorf("X25519 pass cost %v, below the engine's %v crypto/ecdh agreements", X25519().PassCost(), x25519x8.PassCost())
	}
	for n := 1; n <= MaxBatch; n++ {
		if got, want := P256().BatchSize(n), min(n, ecdhx8.PassLanes()); got > want || got < 1 {
			t.Errorf("P-256 BatchSize(%d) = %d, want at most %d", n, got, want)
		}
		if got := X25519().BatchSize(n); got != x25519x8.BatchSize(n) || got != HybridBatchSize(n) {
			t.Errorf("X25519 BatchSize(%d) = %d, x25519x8's %d", n, got, x25519x8.BatchSize(n))
		}
	}
}

// TestBatchBadLane puts a public key that NewPublicKey would have refused
// (built past it) in the middle of a batch of every method: that lane
// alone fails, with ErrInvalidKey, and the others get what the
// one-at-a-time path computes.
func TestBatchBadLane(t *testing.T) {
	bad := map[*KEM][]byte{
		P256():      append([]byte{4}, make([]byte, 64)...), // (0, 0) is not on the curve
		Secp256k1(): append([]byte{4}, bytes.Repeat([]byte{0xff}, 64)...),
	}
	for kem, raw := range bad {
		t.Run(fmt.Sprintf("kem=%04x/batches=%v", kem.ID(), kem.Batches()), func(t *testing.T) {
			sks, pks := batchKeys(t, kem, MaxBatch, -1)
			const lane = 3
			pks[lane] = &PublicKey{kem: kem, raw: raw}
			sk, _ := kem.GenerateKey()
			check := func(method string, out [][]byte, errs []error, want func(i int) []byte) {
				t.Helper()
				for i := range out {
					switch {
					case i == lane:
						if errs == nil || !errors.Is(errs[i], ErrInvalidKey) || out[i] != nil {
							t.Fatalf("%s: bad lane: %x, %v", method, out[i], errs)
						}
					case errs != nil && errs[i] != nil:
						t.Fatalf("%s: lane %d failed beside the bad one: %v", method, i, errs[i])
					case !bytes.Equal(out[i], want(i)):
						t.Fatalf("%s: lane %d: %x, want %x", method, i, out[i], want(i))
					}
				}
			}
			dh, errs := kem.DHBatch(sk, pks)
			check("DHBatch", dh, errs, func(i int) []byte { w, _ := kem.DH(sk, pks[i]); return w })
			ss, errs := kem.EncapShared(sk, pks)
			check("EncapShared", ss, errs, func(i int) []byte { w, _ := kem.Decap(sk.PublicKey(), sks[i]); return w })
			encs, ss, errs := kem.EncapFresh(pks)
			check("EncapFresh", ss, errs, func(i int) []byte { w, _ := kem.Decap(encs[i], sks[i]); return w })
		})
	}
}

// TestScalar: the batch methods read the private scalar that Bytes
// serializes, without allocating.
func TestScalar(t *testing.T) {
	for _, kem := range batchKEMs {
		sk, _ := kem.GenerateKey()
		var s [32]byte
		if allocs := testing.AllocsPerRun(10, func() { sk.k.scalar(&s) }); allocs != 0 {
			t.Errorf("KEM %04x: scalar allocates %v times", kem.ID(), allocs)
		}
		if !bytes.Equal(s[:], sk.Bytes()) {
			t.Errorf("KEM %04x: scalar %x, Bytes %x", kem.ID(), s, sk.Bytes())
		}
	}
}

// TestRandomScalar checks the range test of fresh batched ephemeral keys
// at the edges of [1, n-1], the orders written here from SEC 2, and that
// the keys it draws are private keys NewPrivateKey accepts.
func TestRandomScalar(t *testing.T) {
	for kem, order := range map[*KEM]string{
		P256():      "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
		Secp256k1(): "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
	} {
		n := new(big.Int)
		n.SetString(order, 16)
		at := func(delta int64) (b [32]byte) {
			new(big.Int).Add(n, big.NewInt(delta)).FillBytes(b[:])
			return b
		}
		var zero, one, all [32]byte
		one[31] = 1
		for i := range all {
			all[i] = 0xff
		}
		nb, below := at(0), at(-1)
		var high [32]byte // n with its lowest word cleared: below n
		copy(high[:24], nb[:24])
		for _, c := range []struct {
			s    [32]byte
			want bool
		}{{zero, false}, {one, true}, {at(-1), true}, {at(0), false}, {at(1), false}, {all, false}, {high, true}} {
			if got := inRange(&c.s, &nb); got != c.want {
				t.Errorf("KEM %04x: inRange(%x) = %v, want %v", kem.ID(), c.s, got, c.want)
			}
		}
		if kem == P256() {
			if p256Order := p256Order(); !inRange(&below, &p256Order) || p256Order != nb {
				t.Errorf("P-256: the order is %x", p256Order)
			}
		} else if k256Order != nb {
			t.Errorf("secp256k1: the order is %x", k256Order)
		}
		for range 100 {
			var s [32]byte
			kem.randomScalar(&s)
			if _, err := kem.NewPrivateKey(s[:]); err != nil {
				t.Fatalf("KEM %04x: random scalar %x: %v", kem.ID(), s, err)
			}
		}
	}
}

func TestDHBatch(t *testing.T) {
	for _, kem := range batchKEMs {
		t.Run(fmt.Sprintf("kem=%04x", kem.ID()), func(t *testing.T) {
			bad := -1
			if kem == X25519() {
				bad = 0
			}
			_, pks := batchKeys(t, kem, MaxBatch, bad)
			sk, _ := kem.GenerateKey()
			dh, errs := kem.DHBatch(sk, pks)
			for i, pk := range pks {
				want, err := kem.DH(sk, pk)
				if i == bad {
					if err == nil || errs == nil || !errors.Is(errs[i], ErrInvalidKey) {
						t.Fatalf("low-order key: batch error %v, DH error %v", errs, err)
					}
					continue
				}
				if err != nil || (errs != nil && errs[i] != nil) || !bytes.Equal(dh[i], want) {
					t.Fatalf("key %d: %x, DH says %x (%v)", i, dh[i], want, err)
				}
			}
		})
	}
}

func TestBatchMisuse(t *testing.T) {
	x, p := X25519(), P256()
	skP, _ := p.GenerateKey()
	_, pksX := batchKeys(t, x, MaxBatch+1, -1)
	for name, f := range map[string]func(){
		"too many":      func() { x.EncapFresh(pksX) },
		"wrong private": func() { x.DHBatch(skP, pksX[:1]) },
		"wrong public":  func() { p.DHBatch(skP, pksX[:1]) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkBatch is eight key agreements of each batch method (impl=batch)
// against the loop of one-at-a-time calls it replaces (impl=single:
// GenerateKey and Encap, Encap, DH), for every KEM.
func BenchmarkBatch(b *testing.B) {
	names := map[*KEM]string{X25519(): "x25519", P256(): "p256", Secp256k1(): "secp256k1"}
	for _, kem := range batchKEMs {
		pks := make([]*PublicKey, MaxBatch)
		for i := range pks {
			sk, _ := kem.GenerateKey()
			pks[i], _ = kem.NewPublicKey(sk.PublicKey())
		}
		sk, _ := kem.GenerateKey()
		for _, method := range []string{"encap-fresh", "encap-shared", "dh"} {
			b.Run(fmt.Sprintf("kem=%s/method=%s/impl=batch/n=%d", names[kem], method, MaxBatch), func(b *testing.B) {
				if !kem.Batches() {
					b.Skip("no AVX-512 IFMA")
				}
				b.ReportAllocs()
				for b.Loop() {
					var errs []error
					switch method {
					case "encap-fresh":
						_, _, errs = kem.EncapFresh(pks)
					case "encap-shared":
						_, errs = kem.EncapShared(sk, pks)
					default:
						_, errs = kem.DHBatch(sk, pks)
					}
					if errs != nil {
						b.Fatal(errs)
					}
				}
			})
			b.Run(fmt.Sprintf("kem=%s/method=%s/impl=single/n=%d", names[kem], method, MaxBatch), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					for _, pk := range pks {
						var err error
						switch method {
						case "encap-fresh":
							var eph *PrivateKey
							if eph, err = kem.GenerateKey(); err == nil {
								_, err = kem.Encap(eph, pk)
							}
						case "encap-shared":
							_, err = kem.Encap(sk, pk)
						default:
							_, err = kem.DH(sk, pk)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// decapEdges are encapsulated keys at the edges of each KEM's encoding:
// the identity or low-order points, coordinates at and above p,
// non-canonical X25519 encodings (bit 255 set, u ≥ p, which Decap reduces
// as RFC 7748 says), compressed and wrong-length encodings, off-curve
// points.
func decapEdges(t *testing.T, kem *KEM) [][]byte {
	t.Helper()
	sk, _ := kem.GenerateKey()
	valid := sk.PublicKey()
	if kem == X25519() {
		p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
		le := func(v *big.Int) []byte { // 32 bytes, little-endian
			b := v.FillBytes(make([]byte, 32))
			slices.Reverse(b)
			return b
		}
		high := bytes.Clone(valid)
		high[31] |= 0x80
		return [][]byte{make([]byte, 32), le(big.NewInt(1)), le(p), le(new(big.Int).Add(p, big.NewInt(1))),
			le(new(big.Int).Add(p, big.NewInt(9))), high, bytes.Repeat([]byte{0xff}, 32), valid[:31], append(bytes.Clone(valid), 0)}
	}
	params := map[*KEM]*big.Int{P256(): elliptic.P256().Params().P, Secp256k1(): secp256k1.Params().P}[kem]
	coord := func(v *big.Int) []byte { return v.FillBytes(make([]byte, 32)) }
	offCurve := bytes.Clone(valid)
	offCurve[64] ^= 1
	xAtP := append([]byte{4}, append(coord(params), valid[33:]...)...)
	yAbove := new(big.Int).Add(params, new(big.Int).SetBytes(valid[33:])) // y + p, the same y mod p, where it fits
	if yAbove.BitLen() > 256 {
		yAbove = params
	}
	yHigh := append(append([]byte{4}, valid[1:33]...), coord(yAbove)...)
	compressed := append([]byte{2 | valid[64]&1}, valid[1:33]...)
	return [][]byte{{0}, append([]byte{4}, make([]byte, 64)...), offCurve, xAtP, yHigh, compressed,
		bytes.Repeat([]byte{0xff}, 65), valid[:64], append(bytes.Clone(valid), 0), nil}
}

// TestDecapBatch: each lane of DecapBatch is Decap of its encapsulated
// key, for every batch size and every edge key in every lane position: the
// same shared secret, or a refusal where Decap refuses (ErrInvalidKey
// where Decap's is), the other lanes untouched.
func TestDecapBatch(t *testing.T) {
	for _, kem := range batchKEMs {
		t.Run(fmt.Sprintf("kem=%04x/batches=%v", kem.ID(), kem.Batches()), func(t *testing.T) {
			sk, _ := kem.GenerateKey()
			edges := decapEdges(t, kem)
			for n := 1; n <= MaxBatch; n++ {
				for e, edge := range edges {
					encs := make([][]byte, n)
					for i := range encs {
						eph, _ := kem.GenerateKey()
						encs[i] = eph.PublicKey()
					}
					encs[(e+n)%n] = edge
					if n > 1 { // a second bad lane beside the first
						encs[(e+n+1)%n] = edges[(e+1)%len(edges)]
					}
					ss, errs := kem.DecapBatch(sk, encs)
					for i, enc := range encs {
						want, werr := kem.Decap(enc, sk)
						var err error
						if errs != nil {
							err = errs[i]
						}
						switch {
						case (err == nil) != (werr == nil) || errors.Is(werr, ErrInvalidKey) != errors.Is(err, ErrInvalidKey):
							t.Fatalf("n=%d, lane %d, key %x: batch error %v, Decap error %v", n, i, enc, err, werr)
						case !bytes.Equal(ss[i], want):
							t.Fatalf("n=%d, lane %d, key %x: %x, Decap gives %x", n, i, enc, ss[i], want)
						}
					}
				}
			}
		})
	}
}
