package fanseal

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// Private envelopes (docs/FORMAT.md, "Private envelopes"; SECURITY.md
// argues them): every classical recipient of a suite is sealed with the
// envelope's one ephemeral key of that suite, and its shared stanza
// carries, where a key identifier would be, a tag that the HPKE context
// of that recipient exports:
//
//	tag = Export(format.TagLabel || preamble, 8)
//
// A reader runs its one key agreement with the ephemeral key, derives the
// context and so its tag, and opens the stanza that carries it, if any;
// to anyone else the tags are pseudorandom.

// private reports whether s seals private envelopes: unless it is
// Identified or Anonymous, or its strategy is one that names its
// recipients (Channel) or gives each stanza its own ephemeral key
// (Precomputed).
func (s *Sealer) private() bool {
	return !s.Identified && !s.Anonymous && s.Strategy != Channel && s.Strategy != Precomputed
}

// maxSealTries bounds the seals of one private envelope whose tags
// collided (tagsCollide): each collision has probability 2^-64 a pair.
const maxSealTries = 4

// checkPrivate refuses what a private envelope cannot hold: more ssh-rsa
// recipients, which have no tag and whose stanzas a reader tries (rule
// 12), than a default Opener tries; and two post-quantum recipients with
// one X25519 half, whose tags (of the X25519 half alone) would be equal
// under every ephemeral key: anyone can publish a key made of another's
// X25519 half and an ML-KEM-768 key of their own.
func (s *Sealer) checkPrivate(recipients []*Recipient) error {
	if err := checkRSATrials(recipients, "a private"); err != nil {
		return err
	}
	halves := map[[32]byte]int{}
	for i, r := range recipients {
		if r.pq == nil {
			continue
		}
		k := [32]byte(r.pq.X25519())
		if j, ok := halves[k]; ok {
			return fmt.Errorf("%w: recipients %d and %d have the same X25519 half, which gives them one tag in a private envelope: seal them with Identified", ErrDuplicateRecipient, j, i)
		}
		halves[k] = i
	}
	return nil
}

// sealTagged appends a private shared stanza body: the suite, the tag
// that the context exports for this envelope, and the sealed file key.
func (it *precomputed) sealTagged(dst []byte, suite uint16, preamble, fileKey []byte) ([]byte, error) {
	tag, err := it.ctx.Export(tagContext(preamble), format.KeyIDSize)
	if err != nil {
		return nil, err
	}
	dst = binary.BigEndian.AppendUint16(dst, suite)
	return it.ctx.Seal(append(dst, tag...), preamble, fileKey)
}

// encapHybrid makes p, a private shared stanza of the hybrid suite that
// hybridItems did not make ready, ready by itself: one encapsulation with
// the envelope's shared ephemeral key, then readyHybrid.
func (p *plan) encapHybrid(preamble []byte) error {
	ctPQ, ss, ssT, err := p.heph.Encap(p.r.pq)
	if err != nil {
		return err
	}
	defer clear(ss)
	defer clear(ssT)
	return p.readyHybrid(ss, ssT, ctPQ, preamble)
}

// readyHybrid gives p, a private shared stanza of the hybrid suite, what
// filling it needs: the HPKE context of the combined shared secret ss
// (its item), the recipient's ML-KEM-768 ciphertext ctPQ, and the tag
// that the X25519 half ssT gives (hybridTag). The stanza is then the
// suite, the tag, ctPQ, and the file key sealed in that context, whose
// encapsulated key is ctPQ || the ephemeral public key.
func (p *plan) readyHybrid(ss, ssT, ctPQ, preamble []byte) error {
	ctx, err := p.cs.hs.NewContext(ss, p.cs.schedFor(p.r))
	if err != nil {
		return err
	}
	p.item, p.heavy = &precomputed{ctx: ctx}, false
	p.ctPQ, p.tag = ctPQ, hybridTag(ssT, preamble, p.heph.PublicKey(), p.r.pq.X25519())
	return nil
}

// hybridItems computes ahead, on a CPU whose X25519 runs eight to a pass
// (internal/x25519x8), what each private hybrid stanza among ps needs,
// as batchAgreements does for fresh stanzas: the X25519 halves with the
// envelope's shared ephemeral key, a pass per eight, the ML-KEM-768
// encapsulations beside the passes in at most Parallelism tasks (one
// when not parallel), then the combiner, the key schedule and the tag
// (bound to preamble). Each such plan gets its item, ML-KEM-768
// ciphertext and tag, and filling it is one AEAD seal; n is how many. A
// low-order half fails its stanza, as encapHybrid would.
func (s *Sealer) hybridItems(ps []plan, preamble []byte, parallel bool) (n int, err error) {
	var lanes []int
	for i := range ps {
		if ps[i].heph != nil && ps[i].typ == format.StanzaShared {
			lanes = append(lanes, i)
		}
	}
	if len(lanes) == 0 {
		return 0, nil
	}
	workers := 1
	if parallel {
		workers = s.parallelism()
	}
	if !ps[lanes[0]].cs.gathers(len(lanes), workers) {
		return 0, nil
	}
	var g errgroup.Group
	g.SetLimit(workers)
	var tasks []func()
	var failed failures
	// The shared ephemeral key's public key, which only the combiners
	// and the tags need, beside the first pass; then the passes, so that
	// a task only ever waits for a pass that has started (as
	// batchAgreements orders its own).
	eph := ps[lanes[0]].heph
	g.Go(func() error { eph.PublicKey(); return nil })
	size := hpke.HybridBatchSize(len(lanes))
	for start := 0; start < len(lanes); start += size {
		batch := lanes[start:min(start+size, len(lanes))]
		h := &halfPass{done: make(chan struct{})}
		pks := make([]*hpke.HybridPublicKey, len(batch))
		for j, i := range batch {
			pks[j] = ps[i].r.pq
		}
		g.Go(func() error {
			defer close(h.done)
			h.ssT, h.errs = ps[batch[0]].heph.Halves(pks)
			batchedAgreements.Add(uint64(len(pks)))
			batchPasses.Add(1)
			return nil
		})
		chunk := ceilDiv(len(batch), workers)
		for from := 0; from < len(batch); from += chunk {
			to := min(from+chunk, len(batch))
			tasks = append(tasks, func() { h.lanes(ps, batch, from, to, preamble, &failed) })
		}
	}
	for _, f := range tasks {
		g.Go(func() error { f(); return nil })
	}
	g.Wait()
	if failed.err != nil {
		return 0, failed.err
	}
	return len(lanes), nil
}

// A halfPass computes the X25519 halves of up to eight private hybrid
// stanzas with the envelope's shared ephemeral key, in one pass.
type halfPass struct {
	done chan struct{}
	ssT  [][]byte
	errs []error
}

// lanes runs the ML-KEM-768 encapsulations of the plans ps[batch[j]],
// from <= j < to, then waits for the pass and gives each plan its item,
// ciphertext and tag, clearing its X25519 half; those that fail are
// recorded in failed.
func (h *halfPass) lanes(ps []plan, batch []int, from, to int, preamble []byte, failed *failures) {
	var ssPQ, ctPQ [hpke.MaxBatch][]byte
	for j := from; j < to; j++ {
		ssPQ[j], ctPQ[j] = ps[batch[j]].r.pq.EncapsulatePQ()
	}
	<-h.done
	for j := from; j < to; j++ {
		i, p := batch[j], &ps[batch[j]]
		err := error(nil)
		if h.errs != nil {
			err = h.errs[j]
		}
		if err == nil {
			ss := p.heph.Combine(p.r.pq, ssPQ[j], h.ssT[j])
			err = p.readyHybrid(ss, h.ssT[j], ctPQ[j], preamble)
			clear(ss)
		}
		clear(ssPQ[j])
		clear(h.ssT[j])
		if err != nil {
			failed.add(i, err)
		}
	}
}

// hybridTag is the tag of a hybrid shared stanza (docs/FORMAT.md): HKDF
// of the X25519 half ss_X alone, so that a reader finds its stanza with
// one X25519 agreement, before its one ML-KEM-768 decapsulation, under a
// label of its own (no other fanseal value is HKDF of ss_X, which only
// the X-Wing combiner otherwise takes, under SHA3-256), and bound to the
// envelope (the preamble), the ephemeral key ct_X and the recipient's
// X25519 key pk_X.
//
// HKDF-Expand's first 8 bytes are those of its first 32 (T(1)), so the
// tag is the start of internal/hpke's HKDF32, the key schedule's pooled
// HMAC; an empty salt is HKDF's default, 32 zero bytes, as HMAC pads it.
func hybridTag(ssT, preamble, ctT, pkT []byte) []byte {
	info := make([]byte, 0, len(format.HybridTagLabel)+len(preamble)+len(ctT)+len(pkT))
	info = append(append(append(append(info, format.HybridTagLabel...), preamble...), ctT...), pkT...)
	return hpke.HKDF32(ssT, nil, string(info))[0][:format.KeyIDSize:format.KeyIDSize]
}

// tagContext returns the exporter context of a private envelope's tags.
func tagContext(preamble []byte) []byte {
	return append([]byte(format.TagLabel), preamble...)
}

// tagsCollide reports whether two shared stanzas of hdr, a header this
// package wrote (preamble and stanzas), carry one suite and tag.
func tagsCollide(hdr []byte) bool {
	seen := map[[2 + format.KeyIDSize]byte]bool{}
	for b := hdr[format.PreambleSize:]; len(b) >= 3; {
		typ, n := b[0], int(binary.BigEndian.Uint16(b[1:3]))
		body := b[3 : 3+n]
		b = b[3+n:]
		if typ != format.StanzaShared {
			continue
		}
		k := [2 + format.KeyIDSize]byte(body)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// shuffleShared puts the ephemeral stanzas first, then the shared and
// ssh-rsa stanzas in a random order (ChaCha8 seeded from crypto/rand),
// then the rest (age stanzas, in the order their recipients wrote them):
// where a reader's stanza stands says nothing about the order the sealer
// gave the recipients in, so that an active attacker who learns which
// stanza is a reader's (SECURITY.md) learns nothing more than that it is
// a recipient.
func shuffleShared(ps []plan) []plan {
	var seed [32]byte
	crand.Read(seed[:])
	rng := rand.New(rand.NewChaCha8(seed))
	out := make([]plan, 0, len(ps))
	mixed := func(p plan) bool { return p.typ == format.StanzaShared || p.typ == format.StanzaRSA }
	for _, p := range ps {
		if p.typ == format.StanzaEphemeral {
			out = append(out, p)
		}
	}
	start := len(out)
	for _, p := range ps {
		if mixed(p) {
			out = append(out, p)
		}
	}
	shuffled := out[start:]
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, p := range ps {
		if p.typ != format.StanzaEphemeral && !mixed(p) {
			out = append(out, p)
		}
	}
	return out
}

// StanzaFor returns the index, among the stanzas of the envelope that
// starts with header (its header and MAC, at least), of the stanza that
// identity would open, as Open finds it and without opening it: the
// stanza with the identity's key identifier, or in a private envelope the
// one with its tag, which costs the one key agreement an open costs. It
// returns -1 where no stanza names the identity that way: where none is
// its, and for stanzas that only a trial decryption tells apart (those of
// an anonymous envelope, a private envelope's ssh-rsa stanzas, age
// stanzas and passphrases). It checks the header's framing as Open does,
// but not its MAC.
func StanzaFor(header []byte, identity *Identity) (int, error) {
	h, _, err := format.ParseHeader(header)
	if err != nil {
		return -1, err
	}
	if h.Anonymous() || identity == nil {
		return -1, nil
	}
	o := new(Opener)
	t := &trial{o: o, h: h}
	defer t.clear()
	for st := range o.candidates(h, []*Identity{identity}, t.tag) {
		switch {
		case st.Type == format.StanzaAge, st.Type == format.StanzaScrypt:
		case st.Type == format.StanzaRSA && h.RSAKeyless():
		default:
			return st.Index, nil
		}
	}
	return -1, t.tagErr
}
