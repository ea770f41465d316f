package fanseal

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/format"
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

// mutateEnc returns a copy of env whose first HPKE stanza's encapsulated
// key (or, with no HPKE stanza, whose shared ephemeral key) is replaced by
// f's result.
func mutateEnc(t testing.TB, env []byte, f func(enc []byte)) []byte {
	env = bytes.Clone(env)
	h, _, err := format.ParseHeader(env)
	if err != nil {
		t.Fatal(err)
	}
	for st := range h.Stanzas() {
		switch st.Type {
		case format.StanzaHPKE:
			hs, err := format.ParseHPKE(st.Body, h.Anonymous())
			if err != nil {
				t.Fatal(err)
			}
			f(hs.Enc) // aliases env
			return env
		case format.StanzaEphemeral:
			_, enc, err := format.ParseEphemeral(st.Body)
			if err != nil {
				t.Fatal(err)
			}
			f(enc)
			return env
		}
	}
	t.Fatal("no encapsulated key in the envelope")
	return nil
}

// badBatch returns n envelopes for id, good and bad in a random order: of
// every strategy that makes one, anonymous or not, and tampered (invalid,
// off-curve or low-order encapsulated keys, a flipped stanza, header MAC
// or payload byte, truncated), sealed to others, and of another suite.
func badBatch(t testing.TB, rng *rand.Rand, id *Identity, n int) [][]byte {
	_, all := identities(t, id.Suite(), 5) // id is the first, the opener's other the second
	ors := all[2:]
	alien := X25519
	if id.Suite() == X25519 {
		alien = P256
	}
	_, ars := identities(t, alien, 1)
	rs := append([]*Recipient{ors[0], id.Recipient()}, ors[1:]...)
	var out [][]byte
	for range n {
		s := &Sealer{Anonymous: rng.IntN(4) == 0}
		if !id.Suite().PostQuantum() && rng.IntN(2) == 0 {
			s.Strategy = Shared
		}
		pt := randomBytes(rng.IntN(100))
		env := mustSeal(t, s, pt, rs...)
		switch rng.IntN(12) {
		case 0: // an encapsulated key that is not a point
			env = mutateEnc(t, env, func(enc []byte) { enc[len(enc)-1] ^= 1 })
		case 1: // the low-order point 0 for X25519; 0x04 || 0 elsewhere
			env = mutateEnc(t, env, func(enc []byte) { clear(enc[1:]); enc[0] &= 0x04 })
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
			env = mustSeal(t, s, pt, ors...)
		case 7:
			env = mustSeal(t, &Sealer{}, pt, ars...)
		}
		out = append(out, env)
	}
	return out
}

// TestOpenAllBadBatches: on mixed batches of good and bad envelopes, of
// every suite, OpenAll gives every envelope exactly OpenBytes's verdict.
func TestOpenAllBadBatches(t *testing.T) {
	for _, s := range Suites {
		t.Run("suite="+s.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(s), 1))
			ids, _ := identities(t, s, 2)
			for _, n := range []int{1, 7, 8, 9, 64, 130} {
				envs := badBatch(t, rng, ids[0], n)
				for _, given := range [][]*Identity{{ids[0]}, {ids[1], ids[0]}, {ids[1]}, nil} {
					want, wantErr := openEach(new(Opener), envs, given...)
					got, gotErr := new(Opener).OpenAll(envs, given...)
					sameVerdicts(t, envs, got, want, gotErr, wantErr)
				}
			}
		})
	}
}

// TestOpenAllBatches: OpenAll computes the agreements of a burst in
// passes, where the engine takes them, and computes none again; with a
// Cache and a Keyring it gives what OpenBytes gives one envelope after
// another, repeats included (a repeat is a cache hit, with no agreement).
func TestOpenAllBatches(t *testing.T) {
	for _, s := range []Suite{X25519, P256, Secp256k1} {
		t.Run("suite="+s.String(), func(t *testing.T) {
			ids, rs := identities(t, s, 5)
			var envs [][]byte
			for i := range 64 {
				envs = append(envs, mustSeal(t, &Sealer{Strategy: []Strategy{Sequential, Shared}[i%2]}, []byte{byte(i)}, rs...))
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
			inPasses := 0
			if ids[3].dh.KEM().Batches() {
				inPasses = 64 // eight passes of eight
			}
			if n := passAgreements.Load() - passed; n != uint64(inPasses) {
				t.Errorf("%d of the 64 key agreements computed in passes, want %d", n, inPasses)
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
					env = mustSeal(t, &Sealer{Strategy: Channel, Keyring: kr}, []byte{byte(i)}, rs...)
				}
				mixed = append(mixed, env, env)
			}
			want, wantErr := openEach(mk(), mixed)
			agreed = keyAgreements.Load()
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
	envs := [][]byte{mustSeal(t, &Sealer{}, nil, rs...), nil, []byte("FANSEAL")}
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
	good := [][]byte{mustSeal(f, &Sealer{}, []byte("one"), rs...), mustSeal(f, &Sealer{Strategy: Shared}, []byte("two"), rs...)}
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
