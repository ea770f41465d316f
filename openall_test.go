package fanseal

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// openEach opens envelopes one after another with OpenBytes: the verdicts
// OpenAll must give.
func openEach(o *Opener, envelopes [][]byte, ids ...*Identity) ([][]byte, []error) {
	out, errs := make([][]byte, len(envelopes)), make([]error, len(envelopes))
	for i, env := range envelopes {
		out[i], errs[i] = o.OpenBytes(env, ids...)
	}
	return out, errs
}

// sameVerdicts reports the first envelope whose OpenAll verdict differs
// from OpenBytes's: another plaintext, or another error (compared by its
// text, which names the class and the stanza).
func sameVerdicts(t *testing.T, envelopes [][]byte, got, want [][]byte, gotErr, wantErr []error) {
	t.Helper()
	if len(got) != len(envelopes) || len(gotErr) != len(envelopes) {
		t.Fatalf("OpenAll returned %d plaintexts and %d errors for %d envelopes", len(got), len(gotErr), len(envelopes))
	}
	for i := range envelopes {
		if fmt.Sprint(gotErr[i]) != fmt.Sprint(wantErr[i]) || !bytes.Equal(got[i], want[i]) || (got[i] == nil) != (want[i] == nil) {
			t.Fatalf("envelope %d: OpenAll gave %q (%d bytes), OpenBytes %q (%d bytes)", i, gotErr[i], len(got[i]), wantErr[i], len(want[i]))
		}
	}
}

// mutateEnc returns a copy of env in which f has changed the encapsulated
// key of the HPKE stanza for id (by key identifier; in an anonymous
// envelope, a random HPKE stanza) or, with none, the shared ephemeral key.
func mutateEnc(t testing.TB, rng *rand.Rand, env []byte, id *Identity, f func(enc []byte)) []byte {
	env = bytes.Clone(env)
	h, _, err := format.ParseHeader(env)
	if err != nil {
		t.Fatal(err)
	}
	var encs [][]byte
	for st := range h.Stanzas() {
		switch st.Type {
		case format.StanzaHPKE:
			hs, err := format.ParseHPKE(st.Body, h.Anonymous())
			if err != nil {
				t.Fatal(err)
			}
			if hs.KeyID == nil || bytes.Equal(hs.KeyID, id.r.id[:]) {
				encs = append(encs, hs.Enc) // aliases env
			}
		case format.StanzaEphemeral:
			_, enc, err := format.ParseEphemeral(st.Body)
			if err != nil {
				t.Fatal(err)
			}
			encs = append(encs, enc)
		}
	}
	if len(encs) == 0 {
		t.Fatal("no encapsulated key in the envelope")
	}
	f(encs[rng.IntN(len(encs))])
	return env
}

// lowOrderEncodings are the encodings of X25519's low-order points: 0, 1,
// p − 1, the two points of order 8, and p and p + 1 (non-canonical 0 and
// 1), little-endian.
var lowOrderEncodings = []string{
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
	"5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
}

// badBatch returns n envelopes for the opener's identities ids (one of
// them, or both), good and bad in a random order: of every strategy that
// makes one, anonymous or not, and tampered (encapsulated keys that are
// not points or are of low order, a flipped stanza, header MAC or payload
// byte, truncated), sealed to others only, and of another suite.
func badBatch(t testing.TB, rng *rand.Rand, ids []*Identity, n int) [][]byte {
	s := ids[0].Suite()
	_, all := identities(t, s, 5) // ids[0] and ids[1] first, then others
	ors := all[2:]
	alien := X25519
	if s == X25519 {
		alien = P256
	}
	_, ars := identities(t, alien, 1)
	var out [][]byte
	for range n {
		rs := []*Recipient{ors[0], ids[0].Recipient(), ors[1]}
		if rng.IntN(2) == 0 {
			rs = append(rs, ids[1].Recipient())
		}
		sl := &Sealer{Identified: true, Anonymous: rng.IntN(4) == 0}
		if !s.PostQuantum() && rng.IntN(2) == 0 {
			sl.Strategy = Shared
		}
		pt := randomBytes(rng.IntN(100))
		env := mustSeal(t, sl, pt, rs...)
		switch rng.IntN(12) {
		case 0: // an encapsulated key that is not a point (or, for X25519, another one)
			env = mutateEnc(t, rng, env, ids[0], func(enc []byte) { enc[len(enc)-1] ^= 1 })
		case 1: // a low-order point for X25519; the identity's encoding elsewhere
			env = mutateEnc(t, rng, env, ids[0], func(enc []byte) {
				if s == X25519 {
					b, _ := hex.DecodeString(lowOrderEncodings[rng.IntN(len(lowOrderEncodings))])
					copy(enc, b)
				} else {
					clear(enc[1:])
				}
			})
		case 2:
			env[format.PreambleSize+20] ^= 0x80
		case 3:
			h, _, _ := format.ParseHeader(env)
			env[len(h.Raw)+3] ^= 1 // the header MAC
		case 4:
			env[len(env)-1] ^= 1
		case 5:
			env = env[:rng.IntN(len(env))]
		case 6:
			env = mustSeal(t, sl, pt, ors...)
		case 7:
			env = mustSeal(t, &Sealer{Identified: true}, pt, ars...)
		}
		out = append(out, env)
	}
	return out
}

// TestOpenAllBadBatches: on mixed batches of good and bad envelopes, of
// every suite and of two suites at once, OpenAll gives every envelope
// exactly OpenBytes's verdict, whichever identities open.
func TestOpenAllBadBatches(t *testing.T) {
	check := func(t *testing.T, envs [][]byte, given ...*Identity) {
		t.Helper()
		want, wantErr := openEach(new(Opener), envs, given...)
		got, gotErr := new(Opener).OpenAll(envs, given...)
		sameVerdicts(t, envs, got, want, gotErr, wantErr)
	}
	for _, s := range Suites {
		t.Run("suite="+s.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(s), 1))
			ids, _ := identities(t, s, 2)
			counts := []int{1, 7, 8, 9, 64, 130, 300}
			if testing.Short() {
				counts = counts[:6] // 130 crosses two windows of openAllWindow already
			}
			for _, n := range counts {
				envs := badBatch(t, rng, ids, n)
				for _, given := range [][]*Identity{{ids[0]}, {ids[1], ids[0]}, {ids[1]}, nil} {
					check(t, envs, given...)
				}
			}
		})
	}
	// Two suites' envelopes interleaved, opened with identities of both:
	// given picks them from the first suite's (a) and the second's (b).
	for _, mix := range []struct {
		a, b  Suite
		seed  uint64
		n     int
		given func(a, b []*Identity) []*Identity
	}{
		{X25519, P256, 7, 70, func(a, b []*Identity) []*Identity { return []*Identity{a[0], b[0], a[1]} }},
		{X25519, MLKEM768X25519, 8, 40, func(a, b []*Identity) []*Identity { return []*Identity{b[0], a[0], b[1]} }},
	} {
		t.Run("suite="+mix.a.String()+"+"+mix.b.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, mix.seed))
			as, _ := identities(t, mix.a, 2)
			bs, _ := identities(t, mix.b, 2)
			a, b := badBatch(t, rng, as, mix.n), badBatch(t, rng, bs, mix.n)
			var envs [][]byte
			for i := range a {
				envs = append(envs, a[i], b[i])
			}
			check(t, envs, mix.given(as, bs)...)
		})
	}
}

// openAll64 seals 64 envelopes (payload i for envelope i) to 5 identities
// of suite s, with the strategies in turn, and opens them with one OpenAll
// as the fourth: each gives its payload, for one key agreement. It returns
// the identities, their recipients, the envelopes and how many of the 64
// agreements OpenAll computed ahead, in passes.
func openAll64(t *testing.T, s Suite, strategies ...Strategy) ([]*Identity, []*Recipient, [][]byte, uint64) {
	t.Helper()
	ids, rs := identities(t, s, 5)
	var envs [][]byte
	for i := range 64 {
		envs = append(envs, mustSeal(t, &Sealer{Identified: true, Strategy: strategies[i%len(strategies)]}, []byte{byte(i)}, rs...))
	}
	agreed, passed := keyAgreements.Load(), passAgreements.Load()
	got, errs := OpenAll(envs, ids[3])
	for i := range envs {
		if errs[i] != nil || !bytes.Equal(got[i], []byte{byte(i)}) {
			t.Fatalf("envelope %d: %q, %v", i, got[i], errs[i])
		}
	}
	if n := keyAgreements.Load() - agreed; n != 64 {
		t.Errorf("%d key agreements for 64 envelopes", n)
	}
	return ids, rs, envs, passAgreements.Load() - passed
}

// TestOpenAllPostQuantum: 64 post-quantum envelopes open with OpenAll in
// 64 key agreements, all computed ahead in passes where the X25519 halves
// batch (none ahead elsewhere: OpenBytes's path), and a batch of repeats
// through a SessionCache takes one agreement per distinct envelope.
func TestOpenAllPostQuantum(t *testing.T) {
	ids, _, envs, ahead := openAll64(t, MLKEM768X25519, Sequential, Parallel)
	want := uint64(0)
	if hpke.HybridBatches() {
		want = 64
	}
	if ahead != want {
		t.Errorf("%d of the 64 key agreements computed ahead, want %d (batches: %v)", ahead, want, hpke.HybridBatches())
	}
	var mixed [][]byte
	for i := range 20 {
		mixed = append(mixed, envs[i], envs[i])
	}
	mk := func() *Opener { return &Opener{Cache: NewSessionCache(0, time.Hour)} }
	wantOut, wantErr := openEach(mk(), mixed, ids[3])
	agreed := keyAgreements.Load()
	gotOut, gotErr := mk().OpenAll(mixed, ids[3])
	sameVerdicts(t, mixed, gotOut, wantOut, gotErr, wantErr)
	if n := keyAgreements.Load() - agreed; n != 20 {
		t.Errorf("%d key agreements for 20 envelopes twice each, want 20", n)
	}
}

// TestOpenAllKeepsCacheOrder: asking the SessionCache ahead of opening
// changes nothing in it. Here the cache holds two entries, A (a channel
// envelope of an epoch the Keyring has since left) then B; opening X
// evicts the least recent, A, so A must then fail as OpenBytes fails it,
// not be served because OpenAll looked it up before opening X.
func TestOpenAllKeepsCacheOrder(t *testing.T) {
	ids, rs := identities(t, X25519, 2)
	sender, _ := GenerateIdentity(X25519)
	kr, _ := NewKeyring(sender, 0)
	kr.AddPeer(rs...)
	kr.SetEpoch(5)
	a := mustSeal(t, &Sealer{Identified: true, Strategy: Channel, Keyring: kr}, []byte("A"), rs...)
	b := mustSeal(t, &Sealer{Identified: true}, []byte("B"), rs...)
	x := mustSeal(t, &Sealer{Identified: true}, []byte("X"), rs...)
	mk := func() *Opener {
		ring, _ := NewKeyring(ids[0], 0)
		ring.AddPeer(sender.Recipient())
		ring.SetEpoch(5)
		o := &Opener{Cache: NewSessionCache(2, time.Hour), Keyring: ring}
		for _, env := range [][]byte{a, b} {
			if _, err := o.OpenBytes(env); err != nil {
				t.Fatal(err)
			}
		}
		ring.SetEpoch(7)
		return o
	}
	envs := [][]byte{x, a}
	want, wantErr := openEach(mk(), envs)
	if wantErr[1] == nil {
		t.Fatal("A opened one envelope after another: the test no longer sets up an eviction")
	}
	got, gotErr := mk().OpenAll(envs)
	sameVerdicts(t, envs, got, want, gotErr, wantErr)
}

// TestOpenAllAnonymousWindow: an anonymous envelope of more trials than a
// window opens, each of its stanzas tried once, in passes.
func TestOpenAllAnonymousWindow(t *testing.T) {
	ids, rs := identities(t, X25519, 100)
	env := mustSeal(t, &Sealer{Identified: true, Anonymous: true}, []byte("anon"), rs...)
	envs := [][]byte{env, mustSeal(t, &Sealer{Identified: true}, []byte("next"), rs...)}
	agreed, passed := keyAgreements.Load(), passAgreements.Load()
	got, errs := OpenAll(envs, ids[99])
	if errs[0] != nil || errs[1] != nil || string(got[0]) != "anon" || string(got[1]) != "next" {
		t.Fatalf("%q, %v", got, errs)
	}
	// The second envelope's one agreement is unwrap's own: a pass for
	// one costs more than one agreement one at a time.
	if n, p := keyAgreements.Load()-agreed, passAgreements.Load()-passed; n != 101 || p != 100 {
		t.Fatalf("%d key agreements, %d ahead, want 101, 100 ahead: one per anonymous stanza, and one", n, p)
	}
}

// TestOpenAllBatches: OpenAll computes the agreements of a burst in
// passes, where the engine takes them, and computes none again; with a
// Cache and a Keyring it gives what OpenBytes gives one envelope after
// another, repeats included (a repeat is a cache hit, with no agreement).
func TestOpenAllBatches(t *testing.T) {
	for _, s := range []Suite{X25519, P256, Secp256k1} {
		t.Run("suite="+s.String(), func(t *testing.T) {
			ids, rs, envs, ahead := openAll64(t, s, Sequential, Shared)
			// All 64 computed ahead (eight passes of eight where the engine
			// batches, one at a time in its fallback), none again.
			if ahead != 64 {
				t.Errorf("%d of the 64 key agreements computed ahead, want 64", ahead)
			}

			sender, _ := GenerateIdentity(s)
			mk := func() *Opener {
				ring, _ := NewKeyring(ids[3], 0)
				ring.AddPeer(sender.Recipient())
				return &Opener{Cache: NewSessionCache(0, time.Hour), Keyring: ring}
			}
			kr, _ := NewKeyring(sender, 0)
			kr.AddPeer(rs...)
			var mixed [][]byte
			for i := range 20 {
				env := envs[i]
				if i%3 == 0 {
					env = mustSeal(t, &Sealer{Identified: true, Strategy: Channel, Keyring: kr}, []byte{byte(i)}, rs...)
				}
				mixed = append(mixed, env, env)
			}
			want, wantErr := openEach(mk(), mixed)
			agreed := keyAgreements.Load()
			got, gotErr := mk().OpenAll(mixed)
			sameVerdicts(t, mixed, got, want, gotErr, wantErr)
			// 7 channel envelopes open with the Keyring (whose agreement
			// with the sender this counter leaves out); of the 13 others,
			// each takes one agreement, and its repeat is a cache hit.
			if n := keyAgreements.Load() - agreed; n != 13 {
				t.Errorf("%d key agreements for the mixed batch, want 13", n)
			}
		})
	}
}

// TestOpenAllEmpty: no envelopes, no results; no identities, every
// envelope ErrNotRecipient, as OpenBytes says.
func TestOpenAllEmpty(t *testing.T) {
	if out, errs := OpenAll(nil); len(out) != 0 || len(errs) != 0 {
		t.Fatalf("%d, %d results for no envelopes", len(out), len(errs))
	}
	ids, rs := identities(t, X25519, 1)
	envs := [][]byte{mustSeal(t, &Sealer{Identified: true}, nil, rs...), nil, []byte("FANSEAL")}
	want, wantErr := openEach(new(Opener), envs)
	got, gotErr := OpenAll(envs)
	sameVerdicts(t, envs, got, want, gotErr, wantErr)
	want, wantErr = openEach(new(Opener), envs, ids...)
	got, gotErr = OpenAll(envs, ids...)
	sameVerdicts(t, envs, got, want, gotErr, wantErr)
}

// FuzzOpenAll puts an arbitrary envelope among good ones, twice: OpenAll
// gives each exactly OpenBytes's verdict.
func FuzzOpenAll(f *testing.F) {
	id, _ := NewIdentity(X25519, bytes.Repeat([]byte{0x42}, 32))
	other, _ := GenerateIdentity(X25519)
	rs := []*Recipient{other.Recipient(), id.Recipient()}
	good := [][]byte{mustSeal(f, &Sealer{Identified: true}, []byte("one"), rs...), mustSeal(f, &Sealer{Identified: true, Strategy: Shared}, []byte("two"), rs...)}
	for _, s := range []*Sealer{{}, {Anonymous: true}, {Strategy: Shared}, {Strategy: Shared, Anonymous: true}} {
		f.Add(mustSeal(f, s, []byte("fuzz"), rs...))
	}
	f.Fuzz(func(t *testing.T, env []byte) {
		envs := [][]byte{good[0], env, good[1], env}
		want, wantErr := openEach(new(Opener), envs, id)
		got, gotErr := OpenAll(envs, id)
		sameVerdicts(t, envs, got, want, gotErr, wantErr)
		if gotErr[0] != nil || gotErr[2] != nil {
			t.Fatalf("a good envelope failed beside a fuzzed one: %v, %v", gotErr[0], gotErr[2])
		}
	})
}
