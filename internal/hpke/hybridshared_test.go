package hpke

import (
	"bytes"
	"crypto/ecdh"
	stdhpke "crypto/hpke"
	"errors"
	"testing"
)

// TestHybridEphemeral seals to five keys with one shared X25519 ephemeral
// key: each encapsulated key ends in that key, crypto/hpke opens each
// with its own private key, the X25519 half is crypto/ecdh's agreement of
// the recipient's X25519 key with the ephemeral one, and DecapHalf gives
// the sender's shared secret. A low-order X25519 half is refused.
func TestHybridEphemeral(t *testing.T) {
	suite, _ := NewHybridSuite(AEADAES256GCM)
	a, _ := stdhpke.NewAEAD(AEADAES256GCM)
	info := []byte("hybrid shared")
	sks, pks := hybridKeys(t, 5, -1)
	e, err := NewHybridEphemeral()
	if err != nil {
		t.Fatal(err)
	}
	for i, pk := range pks {
		ctPQ, ss, ssT, err := e.Encap(pk)
		if err != nil {
			t.Fatal(err)
		}
		enc := append(bytes.Clone(ctPQ), e.PublicKey()...)
		ctx, _ := suite.NewContext(ss, suite.ScheduleContext(info))
		ct, _ := ctx.Seal(nil, []byte("aad"), []byte("file key"))
		r, err := stdhpke.NewRecipient(enc, sks[i], stdhpke.HKDFSHA256(), a, info)
		if err != nil {
			t.Fatal(err)
		}
		if pt, err := r.Open([]byte("aad"), ct); err != nil || string(pt) != "file key" {
			t.Fatalf("recipient %d: crypto/hpke Open = %q, %v", i, pt, err)
		}
		seed, _ := sks[i].Bytes()
		sk, err := NewHybridPrivateKey(seed)
		if err != nil {
			t.Fatal(err)
		}
		half, err := sk.X25519Half(e.PublicKey())
		if err != nil || !bytes.Equal(half, ssT) {
			t.Fatalf("recipient %d: X25519Half = %x, %v; Encap's %x", i, half, err, ssT)
		}
		xsk, _ := ecdh.X25519().NewPrivateKey(sk.scalar[:])
		xpk, _ := ecdh.X25519().NewPublicKey(e.PublicKey())
		if want, _ := xsk.ECDH(xpk); !bytes.Equal(half, want) {
			t.Fatalf("recipient %d: X25519 half %x, crypto/ecdh %x", i, half, want)
		}
		if got, err := sk.DecapHalf(ctPQ, e.PublicKey(), half); err != nil || !bytes.Equal(got, ss) {
			t.Fatalf("recipient %d: DecapHalf = %x, %v; want %x", i, got, err, ss)
		}
		if pq, err := sk.DecapsulatePQ([][]byte{ctPQ, ctPQ}); err != nil || !bytes.Equal(sk.CombineHalves(pq[1], e.PublicKey(), half), ss) {
			t.Fatalf("recipient %d: DecapsulatePQ and CombineHalves disagree with Encap (%v)", i, err)
		}
		if full, _ := HybridDecap(enc, sk); !bytes.Equal(full, ss) {
			t.Fatalf("recipient %d: HybridDecap disagrees", i)
		}
		if !bytes.Equal(pk.X25519(), pk.Bytes()[len(pk.Bytes())-32:]) {
			t.Fatal("X25519 is not the last 32 bytes of the public key")
		}
	}
	// Halves, for every batch size and a low-order lane: crypto/ecdh's
	// agreement in every other lane, and Combine gives what crypto/hpke
	// opens.
	for n := 1; n <= MaxBatch; n++ {
		bad := n / 2
		sks, pks := hybridKeys(t, n, bad)
		ssT, errs := e.Halves(pks)
		xpk, _ := ecdh.X25519().NewPublicKey(e.PublicKey())
		for i := range n {
			if i == bad {
				if errs == nil || !errors.Is(errs[i], ErrInvalidKey) || ssT[i] != nil {
					t.Fatalf("n=%d: the low-order lane: %v", n, errs)
				}
				continue
			}
			if errs != nil && errs[i] != nil {
				t.Fatalf("n=%d lane %d: %v", n, i, errs[i])
			}
			seed, _ := sks[i].Bytes()
			sk, _ := NewHybridPrivateKey(seed)
			xsk, _ := ecdh.X25519().NewPrivateKey(sk.scalar[:])
			if want, _ := xsk.ECDH(xpk); !bytes.Equal(ssT[i], want) {
				t.Fatalf("n=%d lane %d: %x, crypto/ecdh %x", n, i, ssT[i], want)
			}
			ssPQ, ctPQ := pks[i].EncapsulatePQ()
			ss := e.Combine(pks[i], ssPQ, ssT[i])
			ctx, _ := suite.NewContext(ss, suite.ScheduleContext(info))
			ct, _ := ctx.Seal(nil, []byte("aad"), []byte("file key"))
			r, err := stdhpke.NewRecipient(append(bytes.Clone(ctPQ), e.PublicKey()...), sks[i], stdhpke.HKDFSHA256(), a, info)
			if err != nil {
				t.Fatal(err)
			}
			if pt, err := r.Open([]byte("aad"), ct); err != nil || string(pt) != "file key" {
				t.Fatalf("n=%d lane %d: crypto/hpke Open = %q, %v", n, i, pt, err)
			}
		}
	}
	// X25519Halves of one private key with many ephemeral keys, one of
	// them low-order and one of the wrong length: X25519Half in every
	// other lane.
	seed0, _ := sks[0].Bytes()
	sk0, _ := NewHybridPrivateKey(seed0)
	var ctTs [][]byte
	for i := range MaxBatch {
		o, _ := NewHybridEphemeral()
		ctTs = append(ctTs, o.PublicKey())
		switch i {
		case 2:
			ctTs[i] = make([]byte, 32)
		case 5:
			ctTs[i] = ctTs[i][:31]
		}
	}
	halves, errs := sk0.X25519Halves(ctTs)
	for i, ctT := range ctTs {
		want, wantErr := sk0.X25519Half(ctT)
		if (wantErr != nil) != (errs != nil && errs[i] != nil) || !bytes.Equal(halves[i], want) {
			t.Fatalf("X25519Halves lane %d: %x, %v; X25519Half %x, %v", i, halves[i], errs, want, wantErr)
		}
	}
	_, low := hybridKeys(t, 1, 0)
	if _, _, _, err := e.Encap(low[0]); !errors.Is(err, ErrInvalidKey) {
		t.Fatalf("Encap to a low-order X25519 half: %v", err)
	}
	seed, _ := sks[0].Bytes()
	sk, _ := NewHybridPrivateKey(seed)
	if _, err := sk.X25519Half(make([]byte, 32)); err == nil {
		t.Fatal("X25519Half of the low-order point 0 succeeded")
	}
}

// TestHybridEphemeralPublicKey: the public key computed at its first use
// (internal/x25519x8's fixed-base path where the hybrid batches,
// crypto/ecdh elsewhere) is crypto/ecdh's public key of the scalar, the
// same on every goroutine that asks for it first at once.
func TestHybridEphemeralPublicKey(t *testing.T) {
	for range 20 {
		e, err := NewHybridEphemeral()
		if err != nil {
			t.Fatal(err)
		}
		k, _ := ecdh.X25519().NewPrivateKey(e.scalar[:])
		want := k.PublicKey().Bytes()
		got := make([][]byte, 4)
		done := make(chan int)
		for i := range got {
			go func() { got[i] = e.PublicKey(); done <- i }()
		}
		for range got {
			<-done
		}
		for i := range got {
			if !bytes.Equal(got[i], want) {
				t.Fatalf("PublicKey = %x, crypto/ecdh %x", got[i], want)
			}
		}
	}
}
