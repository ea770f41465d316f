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
// (X25519, P-256 and secp256k1 on a CPU with AVX-512 IFMA). out[i] and
// errs[i] are what OpenBytes(envelopes[i], identities...) returns; errs
// always has one entry per envelope, nil where it opened.
func OpenAll(envelopes [][]byte, identities ...*Identity) (out [][]byte, errs []error) {
	return new(Opener).OpenAll(envelopes, identities...)
}

// openAllWindow is the number of key agreements OpenAll gathers, from
// consecutive envelopes, before computing them: eight full passes, and a
// bound on the shared secrets it holds at once (beside the agreements of
// one anonymous envelope, at most MaxAnonymousTrials). A window holds at
// most openAllEnvelopes headers, however few agreements they take.
const (
	openAllWindow    = 64
	openAllEnvelopes = 256
)

// OpenAll is the package-level OpenAll with the Opener's state.
//
// Each envelope gets exactly the verdict OpenBytes would give it, in the
// order given, and a bad envelope fails only itself: OpenAll reads the
// headers of a window of envelopes, computes in passes the key agreements
// that opening them will take (those of OpenBytes, as its rules find the
// candidate stanzas; none for an envelope the Cache already serves or a
// channel stanza, which the Keyring opens), and then opens each envelope
// as OpenBytes does, taking each agreement from the passes instead of
// computing it. An agreement the passes refused (an invalid ephemeral key)
// is computed again by OpenBytes's own path, which gives its error, so
// forged input costs at most one more agreement than OpenBytes spends on
// it. The bounds of OpenBytes hold for each envelope; beside them OpenAll
// holds the headers and the shared secrets of one window.
//
// The post-quantum suite, and any suite on a CPU where the engines do not
// batch, opens one agreement at a time, as OpenBytes does.
func (o *Opener) OpenAll(envelopes [][]byte, identities ...*Identity) (out [][]byte, errs []error) {
	out, errs = make([][]byte, len(envelopes)), make([]error, len(envelopes))
	ids := o.identities(identities)
	type parsed struct {
		h       *format.Header
		payload []byte
	}
	window := make([]parsed, 0, min(len(envelopes), openAllWindow))
	for start := 0; start < len(envelopes); {
		window = window[:0]
		var ag agreements
		for end := start; end < len(envelopes) && len(window) < openAllEnvelopes && (end == start || ag.count < openAllWindow); end++ {
			h, payload, err := format.ParseHeader(envelopes[end])
			if err != nil {
				errs[end] = err
			} else {
				o.gather(&ag, h, ids)
			}
			window = append(window, parsed{h, payload})
		}
		ag.compute()
		for i, p := range window {
			if p.h == nil {
				continue
			}
			aead, err := o.fileAEAD(p.h, ids, &ag)
			if err == nil {
				out[start+i], err = stream.OpenParallel(aead, nil, p.payload, o.PayloadWorkers)
			}
			errs[start+i] = err
		}
		ag.clear()
		start += len(window)
	}
	return out, errs
}

// gather adds to ag the key agreements that unwrap will take to open the
// envelope with header h: for every HPKE and shared stanza that one of
// the identities may open, by the rules of unwrap, the agreement of that
// identity with the stanza's encapsulated key (a shared stanza's is the
// envelope's ephemeral key of its suite). It adds none for an envelope
// the Cache serves, for an anonymous envelope that checkTrials refuses,
// or for a suite that does not batch. It only reads h: unwrap judges the
// envelope, whatever gather took.
func (o *Opener) gather(ag *agreements, h *format.Header, ids []*Identity) {
	anon := h.Anonymous()
	if len(ids) == 0 || o.Cache != nil && o.Cache.serves(h, ids) || anon && o.checkTrials(h, ids) != nil {
		return
	}
	for st := range h.Stanzas() {
		if st.Type != format.StanzaHPKE && st.Type != format.StanzaShared {
			continue
		}
		kem, id, _ := format.PeekHPKE(st.Body, anon)
		for _, ident := range ids {
			if uint16(ident.suite) != kem || id != nil && !bytes.Equal(id, ident.r.id[:]) || ident.dh == nil || !ident.dh.KEM().Batches() {
				continue
			}
			enc := h.Ephemeral(kem)
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
}

// passAgreements counts the key agreements OpenAll computed in passes
// (also counted in keyAgreements), so tests can see that it batches.
var passAgreements atomic.Uint64

// agreements holds the KEM shared secrets OpenAll computed in passes,
// each of one identity with one encapsulated key, until unwrap takes them.
type agreements struct {
	count   int
	pending map[*Identity][][]byte // encapsulated keys, aliasing the envelopes
	seen    map[agreementKey]bool  // what pending holds
	ss      map[agreementKey][]byte
}

// An agreementKey names an agreement: the identity and the encapsulated
// key, held in place (no key of the suites that batch is longer).
type agreementKey struct {
	ident *Identity
	n     int
	enc   [65]byte
}

func keyOf(ident *Identity, enc []byte) (k agreementKey, ok bool) {
	k.ident, k.n = ident, copy(k.enc[:], enc)
	return k, k.n == len(enc)
}

// add records that ident will decapsulate enc, once (unless enc is longer
// than any key a pass takes: unwrap's Decap refuses it).
func (ag *agreements) add(ident *Identity, enc []byte) {
	k, ok := keyOf(ident, enc)
	if !ok || ag.seen[k] {
		return
	}
	if ag.pending == nil {
		ag.pending, ag.seen = map[*Identity][][]byte{}, map[agreementKey]bool{}
	}
	ag.seen[k] = true
	ag.pending[ident] = append(ag.pending[ident], enc)
	ag.count++
}

// compute runs the pending agreements, as few passes as possible per
// identity, and keeps the shared secrets of those that succeeded; an
// encapsulated key a pass refuses is left to unwrap, whose own Decap says
// why.
func (ag *agreements) compute() {
	for ident, encs := range ag.pending {
		k := ident.dh.KEM()
		size := hpke.BatchSize(len(encs))
		for len(encs) > 0 {
			batch := encs[:min(size, len(encs))]
			encs = encs[len(batch):]
			keyAgreements.Add(uint64(len(batch)))
			passAgreements.Add(uint64(len(batch)))
			ss, errs := k.DecapBatch(ident.dh, batch)
			for i, enc := range batch {
				if errs != nil && errs[i] != nil {
					continue
				}
				if ag.ss == nil {
					ag.ss = make(map[agreementKey][]byte, ag.count)
				}
				k, _ := keyOf(ident, enc)
				ag.ss[k] = ss[i]
			}
		}
	}
	ag.pending, ag.seen = nil, nil
}

// take returns, and forgets, the shared secret of ident with enc, if the
// passes computed it. The caller clears it.
func (ag *agreements) take(ident *Identity, enc []byte) ([]byte, bool) {
	if ag == nil || ag.ss == nil {
		return nil, false
	}
	k, fits := keyOf(ident, enc)
	ss, ok := ag.ss[k]
	if ok = ok && fits; ok {
		delete(ag.ss, k)
	}
	return ss, ok
}

// clear wipes the shared secrets no envelope took.
func (ag *agreements) clear() {
	for k, ss := range ag.ss {
		clear(ss)
		delete(ag.ss, k)
	}
}
