package fanseal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/race"
	"github.com/fanseal/fanseal/internal/stream"
)

func TestRoundTrip(t *testing.T) {
	// A large payload: 10 MiB, or in -short mode (the race detector, the
	// purego build, emulated CPUs) three chunks and a byte, which takes
	// the same paths.
	large := 10 << 20
	if testing.Short() {
		large = 3*stream.ChunkSize + 1
	}
	sizes := []int{0, 1, stream.ChunkSize, stream.ChunkSize + 1, large}
	for _, s := range Suites {
		for _, n := range []int{1, 2, 20, 1000} {
			ids, rs := identities(t, s, n)
			for _, size := range sizes {
				if n == 1000 && size > stream.ChunkSize+1 {
					continue // the payload path does not depend on n
				}
				t.Run(fmt.Sprintf("suite=%s/n=%d/size=%d", s, n, size), func(t *testing.T) {
					pt := randomBytes(size)
					env := mustSeal(t, &Sealer{Identified: true}, pt, rs...)
					mustOpen(t, env, pt, ids[0])
					mustOpen(t, env, pt, ids[n-1])
					if n > 2 {
						mustOpen(t, env, pt, ids[n/2])
					}
				})
			}
		}
	}
}

// TestStrategies checks that every strategy and both AEADs, with and
// without key identifiers, produce envelopes every recipient opens.
func TestStrategies(t *testing.T) {
	for _, s := range Suites {
		ids, rs := identities(t, s, 20)
		for _, st := range Strategies {
			for _, aead := range []AEAD{AES256GCM, ChaCha20Poly1305} {
				for _, anon := range []bool{false, true} {
					name := fmt.Sprintf("suite=%s/strategy=%s/aead=%s/anonymous=%v", s, st, aead, anon)
					t.Run(name, func(t *testing.T) {
						sealer, opener := strategySetup(t, st, aead, anon, ids, rs)
						if sealer == nil {
							return
						}
						pt := []byte("a 32-byte session key, more or less")
						env, err := sealer.SealBytes(pt, rs...)
						if st == Channel && anon {
							if !errors.Is(err, ErrUnsupported) {
								t.Fatalf("anonymous channel envelope: %v", err)
							}
							return
						}
						if err != nil {
							t.Fatal(err)
						}
						for i, id := range ids {
							got, err := opener(i).OpenBytes(env, id)
							if err != nil || !bytes.Equal(got, pt) {
								t.Fatalf("recipient %d: %v", i, err)
							}
						}
					})
				}
			}
		}
	}
}

// strategySetup returns a Sealer for strategy st and the Opener recipient i
// needs. Precomputed and Channel strategies cover the first half of the
// recipients (hot recipients, keyring peers); the rest take the cold path.
func strategySetup(t *testing.T, st Strategy, aead AEAD, anon bool, ids []*Identity, rs []*Recipient) (*Sealer, func(int) *Opener) {
	t.Helper()
	half := len(rs) / 2
	sealer := &Sealer{Identified: true, Strategy: st, AEAD: aead, Anonymous: anon, Parallelism: 3}
	plain := func(int) *Opener { return new(Opener) }
	switch st {
	case Precomputed:
		p, err := NewPrecomputer(PrecomputeOptions{AEAD: aead, PoolSize: 2, Workers: 2}, rs[:half]...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.WaitFull(ctx); err != nil {
			t.Fatal(err)
		}
		sealer.Precomputer = p
	case Channel:
		sender, _ := GenerateIdentity(ids[0].Suite())
		kr, err := NewKeyring(sender, 0)
		if ids[0].Suite().PostQuantum() {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("post-quantum keyring: %v", err)
			}
			return nil, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		kr.AddPeer(rs[:half]...)
		sealer.Keyring = kr
		return sealer, func(i int) *Opener {
			if i >= half {
				return new(Opener)
			}
			rk, _ := NewKeyring(ids[i], 0)
			rk.AddPeer(sender.Recipient())
			return &Opener{Keyring: rk}
		}
	}
	return sealer, plain
}

func TestSealErrors(t *testing.T) {
	_, p := identities(t, P256, 3)
	_, x := identities(t, X25519, 1)
	_, pq := identities(t, MLKEM768X25519, 1)
	for _, tc := range []struct {
		name string
		rs   []*Recipient
		want error
	}{
		{"none", nil, ErrRecipientCount},
		{"duplicate", []*Recipient{p[0], p[1], p[0]}, ErrDuplicateRecipient},
		{"duplicate-reparsed", []*Recipient{p[2], mustParseRecipient(t, p[2].String())}, ErrDuplicateRecipient},
		{"mixed", []*Recipient{p[0], pq[0]}, ErrMixedSuites},
		{"mixed-pq-first", []*Recipient{pq[0], x[0]}, ErrMixedSuites},
		{"nil", []*Recipient{p[0], nil}, ErrInvalidKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := SealBytes(nil, tc.rs...); !errors.Is(err, tc.want) {
				t.Fatalf("SealBytes error = %v, want %v", err, tc.want)
			}
		})
	}
	// One key given twice is refused in an anonymous envelope too, where no
	// identifier would show it, in either spelling (docs/FORMAT.md: a
	// writer never writes two stanzas for one public key).
	ageX, err := x[0].AgeString()
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range [][]*Recipient{{p[0], p[1], p[0]}, {x[0], mustParseRecipient(t, ageX)}} {
		if _, err := (&Sealer{Identified: true, Anonymous: true}).SealBytes(nil, rs...); !errors.Is(err, ErrDuplicateRecipient) {
			t.Fatalf("anonymous SealBytes of one key twice: %v, want ErrDuplicateRecipient", err)
		}
	}
	// Classical suites mix freely.
	ids, _ := identities(t, X25519, 1)
	env := mustSeal(t, &Sealer{Identified: true}, []byte("x"), p[0], x[0])
	mustOpen(t, env, []byte("x"), ids[0])

	tooMany := make([]*Recipient, MaxRecipients+1)
	if _, err := SealBytes(nil, tooMany...); !errors.Is(err, ErrRecipientCount) {
		t.Fatalf("SealBytes with %d recipients: %v", len(tooMany), err)
	}
	if _, err := (&Sealer{Identified: true, AEAD: 0x0001}).SealBytes(nil, p[0]); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("SealBytes with AES-128-GCM: %v", err)
	}
}

func mustParseRecipient(t *testing.T, s string) *Recipient {
	r, err := ParseRecipient(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStreamingSeal seals through the io.WriteCloser in odd-sized writes
// and opens through the io.Reader in odd-sized reads.
func TestStreamingSeal(t *testing.T) {
	ids, rs := identities(t, X25519, 3)
	pt := randomBytes(3*stream.ChunkSize + 12345)
	var buf bytes.Buffer
	w, err := Seal(&buf, rs...)
	if err != nil {
		t.Fatal(err)
	}
	for rest := pt; len(rest) > 0; {
		n := min(len(rest), 7777)
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(&buf, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	p := make([]byte, 999)
	for {
		n, err := r.Read(p)
		got = append(got, p[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, pt) {
		t.Fatal("streamed payload differs")
	}
}

// TestSealLargeStreamMemory seals 1 GiB and checks that the heap stays
// bounded: everything allocated while sealing is well under 64 MiB.
func TestSealLargeStreamMemory(t *testing.T) {
	if testing.Short() || race.Enabled {
		t.Skip("1 GiB stream: skipped in -short and -race runs")
	}
	_, rs := identities(t, P256, 2)
	chunk := randomBytes(1 << 20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w, err := Seal(io.Discard, rs...)
	if err != nil {
		t.Fatal(err)
	}
	for range 1024 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Fatalf("sealing 1 GiB allocated %d MiB, want under 64 MiB", alloc>>20)
	}
	if after.HeapInuse > 64<<20 {
		t.Fatalf("heap in use %d MiB after sealing 1 GiB", after.HeapInuse>>20)
	}
}

// TestParallelPreservesOrder checks that the parallel strategy writes stanza
// i for recipient i: the key identifiers appear in recipient order.
func TestParallelPreservesOrder(t *testing.T) {
	_, rs := identities(t, P256, 50)
	env := mustSeal(t, &Sealer{Identified: true, Parallelism: 8}, nil, rs...)
	h := readHeader(t, env)
	for st := range h.Stanzas() {
		_, id, _ := format.PeekHPKE(st.Body, false)
		if want := rs[st.Index].KeyID(); !bytes.Equal(id, want[:]) {
			t.Fatalf("stanza %d has key id %x, want %x", st.Index, id, want)
		}
	}
}

// TestNilKeys: a nil key is ErrInvalidKey wherever the API takes keys, as
// in Seal, not a nil-pointer panic; removing nil does nothing.
func TestNilKeys(t *testing.T) {
	ids, rs := identities(t, X25519, 1)
	check := func(name string, want error, f func() error) {
		t.Helper()
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s: panic: %v", name, r)
			}
		}()
		if err := f(); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	kr, _ := NewKeyring(ids[0], 0)
	p, _ := NewPrecomputer(PrecomputeOptions{})
	defer p.Close()
	check("NewKeyring(nil)", ErrInvalidKey, func() error { _, err := NewKeyring(nil, 0); return err })
	check("Keyring.AddPeer(nil)", ErrInvalidKey, func() error { return kr.AddPeer(rs[0], nil) })
	check("NewPrecomputer(opts, nil)", ErrInvalidKey, func() error {
		p, err := NewPrecomputer(PrecomputeOptions{}, nil)
		if p != nil {
			p.Close()
		}
		return err
	})
	check("Precomputer.Add(nil)", ErrInvalidKey, func() error { return p.Add(nil) })
	check("Keyring.RemovePeer(nil)", nil, func() error { kr.RemovePeer(nil); return nil })
	check("Precomputer.Remove(nil)", nil, func() error { p.Remove(nil); return nil })
}

// TestSealAbandoned: a payload writer dropped without Close, with chunks
// in flight on the parallel workers, leaves no goroutine behind.
func TestSealAbandoned(t *testing.T) {
	_, rs := identities(t, X25519, 1)
	w, err := (&Sealer{Identified: true, PayloadWorkers: 4}).Seal(io.Discard, rs...)
	if err != nil {
		t.Fatal(err)
	}
	for range 16 {
		if _, err := w.Write(make([]byte, 10000)); err != nil {
			t.Fatal(err)
		}
	}
	goleak.VerifyNone(t)
}

// TestSealerAnonymousLimit: a Sealer refuses, before any key agreement,
// an anonymous envelope that the default Opener would refuse: more than
// DefaultMaxAnonymousTrials recipients of one suite. What it seals, the
// default Opener with one identity opens.
func TestSealerAnonymousLimit(t *testing.T) {
	xs, xr := identities(t, X25519, DefaultMaxAnonymousTrials+1)
	_, pr := identities(t, P256, 2)
	for _, st := range []Strategy{Sequential, Parallel, Shared, SharedParallel} {
		before := batchedAgreements.Load()
		env, err := (&Sealer{Identified: true, Strategy: st, Anonymous: true}).SealBytes([]byte("x"), xr...)
		if !errors.Is(err, ErrAnonymousLimit) || !errors.Is(err, ErrUnsupported) || env != nil {
			t.Fatalf("%s: %d anonymous recipients: %v, want ErrAnonymousLimit", st, len(xr), err)
		}
		if n := batchedAgreements.Load() - before; n != 0 {
			t.Fatalf("%s: %d key agreements before refusing", st, n)
		}
	}
	// With key identifiers, the same recipients are fine.
	mustOpen(t, mustSeal(t, &Sealer{Identified: true, Strategy: Shared}, []byte("x"), xr...), []byte("x"), xs[DefaultMaxAnonymousTrials])
	// The limit is per suite: 1 000 X25519 and 2 P-256 recipients.
	rs := append(append([]*Recipient{}, xr[:DefaultMaxAnonymousTrials]...), pr...)
	env := mustSeal(t, &Sealer{Identified: true, Strategy: Shared, Anonymous: true}, []byte("x"), rs...)
	mustOpen(t, env, []byte("x"), xs[DefaultMaxAnonymousTrials-1])
}
