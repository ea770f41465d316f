package fanseal

import (
	"bytes"
	"sync/atomic"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/stream"
)

// OpenAll opens many whole envelopes held in memory, as OpenBytes would
// open each of them with the same identities, computing their key
// agreements together: eight to a pass of the engines that take them
// (X25519, P-256 and secp256k1, and the X25519 halves of ML-KEM-768+X25519,
// on a CPU with AVX-512 IFMA). out[i] and
// errs[i] are what OpenBytes(envelopes[i], identities...) returns; errs
// always has one entry per envelope, nil where it opened.
func OpenAll(envelopes [][]byte, identities ...*Identity) (out [][]byte, errs []error) {
	return new(Opener).OpenAll(envelopes, identities...)
}

// openAllWindow is the number of key agreements OpenAll gathers, from
// consecutive envelopes, before computing them (eight full passes, for
// one identity), and a bound on the shared secrets it holds at once
// (beside the agreements of one anonymous envelope, at most
// MaxAnonymousTrials). A window holds at most openAllEnvelopes headers,
// however few agreements they take.
const (
	openAllWindow    = 64
	openAllEnvelopes = 256
)

// OpenAll is the package-level OpenAll with the Opener's state.
//
// Each envelope gets exactly the verdict OpenBytes would give it, in the
// order given and with the Cache and Keyring as OpenBytes would leave
// them, and a bad envelope fails only itself. OpenAll reads the headers
// of a window of envelopes and finds the key agreements opening them will
// take, by OpenBytes's own rules for the candidate stanzas (none for an
// envelope the Cache already serves, a channel stanza, which the Keyring
// opens, or an anonymous envelope past MaxAnonymousTrials). It computes
// them in passes, and then opens each envelope as OpenBytes does, taking
// each agreement from the passes instead of computing it. An
// encapsulated key that is not a point is refused before any pass; one
// the pass refuses (a low-order X25519 point) is computed again by
// OpenBytes's own path, which gives its error, so forged input costs at
// most one agreement more per candidate stanza than OpenBytes spends on
// it. The bounds of OpenBytes hold for each envelope; beside them OpenAll
// holds the headers and the shared secrets of one window, wiped when the
// window is done.
//
// The post-quantum suite's agreements batch too, on a CPU with AVX-512
// IFMA: their ML-KEM-768 halves one after another, their X25519 halves
// eight to a pass (hpke.HybridDecapBatch). An identity with a single
// agreement in a window has it computed by OpenBytes's own path (a P-256
// or post-quantum one), where a pass would cost as much or more.
func (o *Opener) OpenAll(envelopes [][]byte, identities ...*Identity) (out [][]byte, errs []error) {
	out, errs = make([][]byte, len(envelopes)), make([]error, len(envelopes))
	ids := o.identities(identities)
	for start := 0; start < len(envelopes); {
		start += o.openWindow(envelopes[start:], ids, out[start:], errs[start:])
	}
	return out, errs
}

// openWindow opens the first window of envelopes into out and errs, and
// returns how many envelopes it held.
func (o *Opener) openWindow(envelopes [][]byte, ids []*Identity, out [][]byte, errs []error) int {
	type parsed struct {
		h       *format.Header
		payload []byte
	}
	var (
		window []parsed
		ag     agreements
	)
	defer ag.clear()
	for i := 0; i < len(envelopes) && len(window) < openAllEnvelopes && (i == 0 || ag.count < openAllWindow); i++ {
		h, payload, err := format.ParseHeader(envelopes[i])
		if err != nil {
			errs[i] = err
		} else {
			o.gather(&ag, h, ids)
		}
		window = append(window, parsed{h, payload})
	}
	ag.compute()
	for _, p := range window {
		if p.h != nil {
			ag.locate(p.h, ids)
		}
	}
	ag.computeLocated()
	for i, p := range window {
		if p.h == nil {
			continue
		}
		aead, err := o.fileAEAD(p.h, ids, &ag)
		if err == nil {
			out[i], err = stream.OpenParallel(aead, nil, p.payload, o.PayloadWorkers)
		}
		errs[i] = err
	}
	return len(window)
}

// gather adds to ag the key agreements that unwrap will take to open the
// envelope with header h: for every HPKE and shared stanza that one of
// the identities may open (candidates), the agreement of that
// identity with the stanza's encapsulated key (a shared stanza's is the
// envelope's ephemeral key of its suite; a post-quantum stanza's, the
// hybrid's, on a CPU whose X25519 halves batch). It adds none for an
// envelope the Cache serves or for an anonymous envelope that
// checkTrials refuses. It changes nothing but ag: unwrap judges the
// envelope, whatever gather took.
func (o *Opener) gather(ag *agreements, h *format.Header, ids []*Identity) {
	anon := h.Anonymous()
	if len(ids) == 0 || o.Cache != nil && o.Cache.serves(h, ids) || anon && o.checkTrials(h, ids) != nil {
		return
	}
	var sharedDone map[*Identity]bool // the identities whose shared agreement is added
	for st, ident := range o.candidates(h, ids, nil) {
		if st.Type == format.StanzaShared {
			// One agreement per identity with the suite's ephemeral key,
			// however many shared stanzas (and whether it is valid or
			// not: checked once).
			if sharedDone[ident] {
				continue
			}
			if sharedDone == nil {
				sharedDone = map[*Identity]bool{}
			}
			sharedDone[ident] = true
		}
		if ident.pq != nil && st.Type == format.StanzaHPKE && hpke.HybridBatches() {
			if hs, err := format.ParseHPKE(st.Body, anon); err == nil {
				ag.addPQ(ident, hs.Enc)
			}
			continue
		}
		if ident.pq != nil && st.Type == format.StanzaShared && hpke.HybridBatches() {
			// A private envelope's hybrid stanzas: the X25519 half with
			// the shared ephemeral key, which gives the tag.
			ag.addHalf(ident, h.Ephemeral(uint16(ident.suite)))
			continue
		}
		if st.Type == format.StanzaChannel || ident.dh == nil {
			continue
		}
		enc := h.Ephemeral(uint16(ident.suite))
		if st.Type == format.StanzaHPKE {
			hs, err := format.ParseHPKE(st.Body, anon)
			if err != nil {
				continue
			}
			enc = hs.Enc
		}
		if enc != nil {
			ag.add(ident, enc)
		}
	}
}

// passAgreements counts the key agreements OpenAll computed ahead, in
// passes where the engine batches (also counted in keyAgreements), so
// tests can see what it gathered.
var passAgreements atomic.Uint64

// agreements holds the KEM shared secrets OpenAll computed in passes,
// each of one identity with one encapsulated key, for unwrap to take.
type agreements struct {
	count int
	dh    window[agreementKey]   // the classical suites'
	pq    window[pqAgreementKey] // the post-quantum suite's
	half  window[halfKey]        // the X25519 halves of private hybrid stanzas
	found window[foundKey]       // and the ML-KEM-768 halves their tags find
	tags  map[tagKey][]byte      // and the tags, which are public
}

// A tagKey names the tag of a post-quantum identity in a private
// envelope: the identity, the ephemeral key and the preamble, which two
// envelopes of a window may share only to share the tag.
type tagKey struct {
	ident    *Identity
	ctT      [32]byte
	preamble [format.PreambleSize]byte
}

// tagOf returns the tag locate derived for ident with the ephemeral key
// ctT in an envelope of the preamble, if it did.
func (ag *agreements) tagOf(ident *Identity, ctT, preamble []byte) ([]byte, bool) {
	if ag == nil || len(ctT) != 32 || len(preamble) != format.PreambleSize {
		return nil, false
	}
	tag, ok := ag.tags[tagKey{ident, [32]byte(ctT), [format.PreambleSize]byte(preamble)}]
	return tag, ok
}

// A foundKey names the ML-KEM-768 half of the private hybrid stanza that
// a post-quantum identity's tag found: the identity and its ciphertext.
type foundKey struct {
	ident *Identity
	ct    [format.HybridCiphertext]byte
}

// locate adds, for each post-quantum identity whose X25519 half with a
// private envelope's ephemeral key compute computed, the ML-KEM-768
// ciphertext of the stanza its tag finds, if any, for computeLocated to
// decapsulate with the others of the window: the one stanza unwrap will
// open, as it finds it (trial.tag). Its verdict is unwrap's alone.
func (ag *agreements) locate(h *format.Header, ids []*Identity) {
	eph := h.Ephemeral(format.KEMMLKEM768X25519)
	if !h.Private() || len(eph) != 32 || !hpke.HybridBatches() {
		return
	}
	for _, ident := range ids {
		ssT := ag.half.ss[halfKey{ident, [32]byte(eph)}]
		if ident.pq == nil || ssT == nil {
			continue
		}
		tag := hybridTag(ssT, h.PreambleBytes(), eph, ident.r.pq.X25519())
		if ag.tags == nil {
			ag.tags = map[tagKey][]byte{}
		}
		ag.tags[tagKey{ident, [32]byte(eph), [format.PreambleSize]byte(h.PreambleBytes())}] = tag
		for st := range h.Stanzas() {
			if st.Type == format.StanzaShared && len(st.Body) == format.HybridSharedSize && bytes.Equal(st.Body[2:2+format.KeyIDSize], tag) {
				ct := st.Body[2+format.KeyIDSize : 2+format.KeyIDSize+format.HybridCiphertext]
				if k := (foundKey{ident, [format.HybridCiphertext]byte(ct)}); !ag.found.seen(k) {
					ag.found.add(ident, k, ct)
				}
				break
			}
		}
	}
}

// computeLocated decapsulates what locate found, in batches per identity.
func (ag *agreements) computeLocated() {
	ag.found.halves = true
	ag.found.compute(func(*Identity) int { return pqMinPass },
		func(ident *Identity, ct []byte) foundKey { return foundKey{ident, [format.HybridCiphertext]byte(ct)} },
		func(ident *Identity, batch [][]byte) ([][]byte, []error) {
			ss, err := ident.pq.DecapsulatePQ(batch)
			if err != nil {
				errs := make([]error, len(batch))
				for i := range errs {
					errs[i] = err
				}
				return make([][]byte, len(batch)), errs
			}
			return ss, nil
		})
}

// takeFound is take for the ML-KEM-768 halves locate found.
func (ag *agreements) takeFound(ident *Identity, ct []byte) ([]byte, bool) {
	if ag == nil || len(ct) != format.HybridCiphertext {
		return nil, false
	}
	return ag.found.take(foundKey{ident, [format.HybridCiphertext]byte(ct)})
}

// A halfKey names the X25519 half of a post-quantum identity with a
// private envelope's shared X25519 ephemeral key.
type halfKey struct {
	ident *Identity
	ctT   [32]byte
}

// addHalf records that the post-quantum identity ident will compute its
// X25519 half with the ephemeral key ctT, once per window.
func (ag *agreements) addHalf(ident *Identity, ctT []byte) {
	if len(ctT) != 32 {
		return
	}
	if k := (halfKey{ident, [32]byte(ctT)}); !ag.half.seen(k) {
		ag.half.add(ident, k, ctT)
		ag.count++
	}
}

// takeHalf is take for the X25519 halves.
func (ag *agreements) takeHalf(ident *Identity, ctT []byte) ([]byte, bool) {
	if ag == nil || len(ctT) != 32 {
		return nil, false
	}
	return ag.half.take(halfKey{ident, [32]byte(ctT)})
}

// A window holds one kind of agreement of a window: the encapsulated keys
// pending per identity (aliasing the envelopes), and the shared secrets by
// key, nil while pending.
type window[K comparable] struct {
	pending map[*Identity][][]byte
	ss      map[K][]byte
	// halves marks a window of ML-KEM-768 halves, whose stanzas' key
	// agreement (the X25519 half) is counted already.
	halves bool
}

// seen reports whether the window has the agreement k.
func (w *window[K]) seen(k K) bool {
	_, ok := w.ss[k]
	return ok
}

// add records that ident will decapsulate enc, whose agreement is k.
func (w *window[K]) add(ident *Identity, k K, enc []byte) {
	if w.ss == nil {
		w.pending, w.ss = map[*Identity][][]byte{}, map[K][]byte{}
	}
	w.ss[k] = nil // pending
	w.pending[ident] = append(w.pending[ident], enc)
}

// compute runs the pending agreements of each identity with at least
// minPass(ident) of them in passes of batch (decapInPasses), and keeps
// the shared secrets of those that succeeded; the others, and any a pass
// refuses, are left to unwrap, whose own agreement says why.
func (w *window[K]) compute(minPass func(*Identity) int, key func(*Identity, []byte) K, batch func(*Identity, [][]byte) ([][]byte, []error)) {
	for ident, encs := range w.pending {
		if len(encs) < minPass(ident) {
			for _, enc := range encs {
				delete(w.ss, key(ident, enc))
			}
			continue
		}
		decapInPasses(encs, func(b [][]byte) ([][]byte, []error) { return batch(ident, b) },
			func(enc []byte) K { return key(ident, enc) }, w.ss, !w.halves)
	}
	w.pending = nil
}

// take returns a copy of the shared secret of agreement k, if the passes
// computed it; the caller clears it.
func (w *window[K]) take(k K) ([]byte, bool) {
	ss := w.ss[k]
	if ss == nil {
		return nil, false
	}
	return bytes.Clone(ss), true
}

// clear wipes the window's shared secrets.
func (w *window[K]) clear() {
	for k, ss := range w.ss {
		clear(ss)
		delete(w.ss, k)
	}
}

// A pqAgreementKey names a post-quantum agreement: the identity and the
// hybrid's encapsulated key.
type pqAgreementKey struct {
	ident *Identity
	enc   [hpke.HybridEncSize]byte
}

func pqKeyOf(ident *Identity, enc []byte) pqAgreementKey {
	return pqAgreementKey{ident, [hpke.HybridEncSize]byte(enc)}
}

// addPQ records that the post-quantum identity ident will decapsulate
// enc, once per window, unless enc has the wrong length (HybridDecap
// refuses it without an agreement, and so will unwrap).
func (ag *agreements) addPQ(ident *Identity, enc []byte) {
	if len(enc) != hpke.HybridEncSize {
		return
	}
	if k := pqKeyOf(ident, enc); !ag.pq.seen(k) {
		ag.pq.add(ident, k, enc)
		ag.count++
	}
}

// pqMinPass is the fewest ML-KEM-768 decapsulations of one identity
// worth a batch (DecapsulatePQ): a batch of one gains nothing.
const pqMinPass = 2

// halfMinPass is the fewest X25519 halves of one identity worth a pass,
// with or without their ML-KEM-768 halves (HybridDecapBatch,
// X25519Halves): 2 with AVX-512 IFMA, 3 with AVX2 alone.
func halfMinPass(*Identity) int { return hpke.MinPass(hpke.HybridPassCost()) }

// takePQ is take for the post-quantum suite.
func (ag *agreements) takePQ(ident *Identity, enc []byte) ([]byte, bool) {
	if ag == nil || len(enc) != hpke.HybridEncSize {
		return nil, false
	}
	return ag.pq.take(pqKeyOf(ident, enc))
}

// An agreementKey names an agreement: the identity and the encapsulated
// key, held in place (no key of the classical suites is longer).
type agreementKey struct {
	ident *Identity
	n     int
	enc   [65]byte
}

func keyOf(ident *Identity, enc []byte) (k agreementKey, ok bool) {
	k.ident, k.n = ident, copy(k.enc[:], enc)
	return k, k.n == len(enc)
}

// add records that ident will decapsulate enc, once per window, unless
// enc is not a public key of ident's suite: Decap refuses it without an
// agreement, and so will unwrap.
func (ag *agreements) add(ident *Identity, enc []byte) {
	k, ok := keyOf(ident, enc)
	if !ok || ag.dh.seen(k) || ident.dh.KEM().CheckPublicKey(enc) != nil {
		return
	}
	ag.dh.add(ident, k, enc)
	ag.count++
}

// compute runs the pending agreements, as few passes as possible per
// identity, and keeps the shared secrets of those that succeeded; an
// agreement a pass refuses is left to unwrap, whose own Decap says why.
// An identity with fewer agreements than are worth a pass (MinPass of
// its PassCost: a single agreement, or two or three on AVX2 alone;
// halfMinPass) has them computed by unwrap one at a time. The
// post-quantum suite's run as the classical ones: the ML-KEM halves one
// after another, the X25519 halves in passes.
func (ag *agreements) compute() {
	ag.pq.compute(halfMinPass, pqKeyOf,
		func(ident *Identity, batch [][]byte) ([][]byte, []error) {
			return hpke.HybridDecapBatch(ident.pq, batch)
		})
	ag.half.compute(halfMinPass,
		func(ident *Identity, ctT []byte) halfKey { return halfKey{ident, [32]byte(ctT)} },
		func(ident *Identity, batch [][]byte) ([][]byte, []error) {
			return ident.pq.X25519Halves(batch)
		})
	ag.dh.compute(func(ident *Identity) int { return hpke.MinPass(ident.dh.KEM().PassCost()) },
		func(ident *Identity, enc []byte) agreementKey { k, _ := keyOf(ident, enc); return k },
		func(ident *Identity, batch [][]byte) ([][]byte, []error) {
			return ident.dh.KEM().DecapBatch(ident.dh, batch)
		})
}

// take returns a copy of the shared secret of ident with enc, if the
// passes computed it; the caller clears it. Every stanza of the window
// with that key takes the same secret.
func (ag *agreements) take(ident *Identity, enc []byte) ([]byte, bool) {
	if ag == nil {
		return nil, false
	}
	k, ok := keyOf(ident, enc)
	if !ok {
		return nil, false
	}
	return ag.dh.take(k)
}

// clear wipes the window's shared secrets.
func (ag *agreements) clear() {
	ag.dh.clear()
	ag.pq.clear()
	ag.half.clear()
	ag.found.clear()
}

// decapInPasses runs decap over encs in calls of up to hpke.MaxBatch,
// as few as possible and spread evenly, counting the agreements, and
// stores each shared secret in into under key(enc); a lane that failed is
// left out, so that unwrap's own agreement gives its error. OpenAll runs
// on one goroutine, so it gains nothing from calls of one pass each (four
// lanes on AVX2), and two AVX2 passes in one call share an inversion.
func decapInPasses[K comparable](encs [][]byte, decap func([][]byte) ([][]byte, []error), key func([]byte) K, into map[K][]byte, count bool) {
	size := ceilDiv(len(encs), ceilDiv(len(encs), hpke.MaxBatch))
	for len(encs) > 0 {
		batch := encs[:min(size, len(encs))]
		encs = encs[len(batch):]
		if count {
			keyAgreements.Add(uint64(len(batch)))
			passAgreements.Add(uint64(len(batch)))
		}
		ss, errs := decap(batch)
		for i, enc := range batch {
			k := key(enc)
			if errs != nil && errs[i] != nil {
				delete(into, k)
				continue
			}
			into[k] = ss[i]
		}
	}
}
