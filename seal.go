package fanseal

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/stream"
)

// HKDF info strings that derive the header MAC key and the payload key from
// the file key, with the envelope nonce as salt (docs/FORMAT.md).
const (
	headerKeyInfo  = "fanseal/v1 header"
	payloadKeyInfo = "fanseal/v1 payload"
)

// A Strategy says how a Sealer computes the per-recipient stanzas. Every
// strategy produces envelopes that Open reads the same way (channel
// stanzas need the recipient's Keyring).
type Strategy uint8

const (
	// Parallel computes stanzas concurrently, at most Sealer.Parallelism at
	// a time in a sliding window: a new stanza starts as soon as any
	// finishes. It is the default. On a CPU with AVX-512 IFMA, every
	// strategy but Sequential gathers the key agreements of each suite up
	// to eight to a pass (internal/x25519x8, internal/ecdhx8); the
	// parallel strategies run the passes in the window.
	Parallel Strategy = iota
	// Sequential computes stanzas one after another on the calling
	// goroutine, each with a fresh ephemeral key and its own key
	// agreement: the baseline.
	Sequential
	// Shared uses one ephemeral key pair per envelope and suite, stored
	// once, so each stanza costs one key agreement instead of a key
	// generation and a key agreement. Stanzas stay standard HPKE.
	// Post-quantum recipients get ordinary stanzas.
	Shared
	// SharedParallel is Shared with the key agreements in the parallel
	// window.
	SharedParallel
	// Precomputed takes a ready sender context from Sealer.Precomputer for
	// each hot recipient (one AEAD seal on the critical path), and seals
	// the others as Parallel does.
	Precomputed
	// Channel seals to every peer in Sealer.Keyring under its cached
	// static channel key (one AEAD seal), and to the others as Parallel
	// does. It gives up per-message forward secrecy: see docs/SECURITY.md.
	Channel
)

// Strategies lists every strategy.
var Strategies = []Strategy{Sequential, Parallel, Shared, SharedParallel, Precomputed, Channel}

// String returns the strategy's name: sequential, parallel, shared,
// shared-parallel, precomputed or channel.
func (s Strategy) String() string {
	switch s {
	case Parallel:
		return "parallel"
	case Sequential:
		return "sequential"
	case Shared:
		return "shared"
	case SharedParallel:
		return "shared-parallel"
	case Precomputed:
		return "precomputed"
	case Channel:
		return "channel"
	}
	return fmt.Sprintf("strategy(%d)", uint8(s))
}

// ParseStrategy returns the strategy with the given name.
func ParseStrategy(name string) (Strategy, error) {
	for _, s := range Strategies {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown strategy %q (want sequential, parallel, shared, shared-parallel, precomputed or channel)", name)
}

// A Sealer seals envelopes. The zero value is ready to use: private
// envelopes (no key identifiers; see Identified), their stanzas sealed
// over GOMAXPROCS goroutines, AES-256-GCM. A Sealer is safe for
// concurrent use; do not change its fields meanwhile.
type Sealer struct {
	// Strategy selects how stanzas are computed.
	Strategy Strategy
	// Parallelism bounds the concurrent stanza computations of the
	// parallel strategies; 0 means runtime.GOMAXPROCS(0).
	Parallelism int
	// AEAD is the cipher of stanzas and payload; 0 means AES256GCM.
	AEAD AEAD
	// Identified gives every stanza its recipient's key identifier, so
	// that anyone who holds the recipients' public keys sees who the
	// envelope is for: for systems that want third parties to see that.
	//
	// Without it, and unless Anonymous is set or the strategy is Channel
	// or Precomputed, envelopes are private (docs/FORMAT.md, "Private
	// envelopes"): the recipients of each suite share one ephemeral key
	// and each stanza carries a tag only its recipient can compute, so
	// the envelope says neither who its recipients are nor that two
	// envelopes share one, and a recipient still opens it with one key
	// agreement. The Sequential and Parallel strategies then seal as
	// Shared and SharedParallel do, and ssh-rsa stanzas, which have no
	// tag, carry no identifier and are tried (at most 125 of them). The
	// Channel and Precomputed strategies are always identified: a channel
	// stanza names its sender, and a precomputed stanza carries its own
	// ephemeral key.
	Identified bool
	// Anonymous writes the older anonymous form: no key identifiers, and
	// each recipient trial-decrypts every stanza of its suite (one key
	// agreement per stanza). Not with Channel. An anonymous envelope
	// holds at most DefaultMaxAnonymousTrials recipients of one suite
	// (ErrAnonymousLimit), so that the default Opener opens it. Private
	// envelopes, the default, hide as much and open with one agreement;
	// the anonymous form remains for readers older than private
	// envelopes, which refuse them (the command line no longer writes
	// it).
	Anonymous bool
	// Precomputer supplies ready sender contexts to the Precomputed
	// strategy.
	Precomputer *Precomputer
	// Keyring supplies the channel keys of the Channel strategy.
	Keyring *Keyring
	// Cache, if set, records the file key of every envelope sealed, so an
	// Opener sharing it opens them without a key agreement.
	Cache *SessionCache
	// PayloadWorkers bounds the goroutines that seal payload chunks; 0
	// means runtime.GOMAXPROCS(0), 1 seals on the calling goroutine.
	// Payloads of one chunk are always sealed on the calling goroutine.
	PayloadWorkers int
}

// Seal writes the header of an envelope for recipients to dst and returns a
// WriteCloser for the payload. The envelope is complete only after Close,
// which does not close dst.
func Seal(dst io.Writer, recipients ...*Recipient) (io.WriteCloser, error) {
	return new(Sealer).Seal(dst, recipients...)
}

// SealBytes returns an envelope of plaintext for recipients.
func SealBytes(plaintext []byte, recipients ...*Recipient) ([]byte, error) {
	return new(Sealer).SealBytes(plaintext, recipients...)
}

// Seal writes the header of an envelope for recipients to dst and returns a
// WriteCloser for the payload. The envelope is complete only after Close,
// which does not close dst. A writer abandoned without Close leaves no
// goroutine running: each chunk sealed in parallel has a goroutine that
// ends with the chunk.
func (s *Sealer) Seal(dst io.Writer, recipients ...*Recipient) (io.WriteCloser, error) {
	hdr, aead, err := s.header(recipients, 1)
	if err != nil {
		return nil, err
	}
	if _, err := dst.Write(hdr); err != nil {
		return nil, err
	}
	return stream.NewParallelWriter(aead, dst, s.PayloadWorkers), nil
}

// SealBytes returns an envelope of plaintext for recipients.
func (s *Sealer) SealBytes(plaintext []byte, recipients ...*Recipient) ([]byte, error) {
	hdr, aead, err := s.header(recipients, 1)
	if err != nil {
		return nil, err
	}
	return stream.SealParallel(aead, hdr, plaintext, s.PayloadWorkers), nil
}

func (s *Sealer) aead() AEAD {
	if s.AEAD == 0 {
		return AES256GCM
	}
	return s.AEAD
}

func (s *Sealer) parallelism() int {
	if s.Parallelism > 0 {
		return s.Parallelism
	}
	return runtime.GOMAXPROCS(0)
}

// checkRecipients enforces the count limits, refuses duplicates and refuses
// post-quantum and classical recipients together. If identified, it also
// refuses distinct keys whose identifiers collide, which readers refuse;
// anonymous, it refuses more recipients of one suite than the default
// Opener's trial limit.
func checkRecipients(recipients []*Recipient, anonymous, identified bool) error {
	if len(recipients) == 0 || len(recipients) > MaxRecipients {
		return fmt.Errorf("%w: %d recipients (allowed: 1 to %d)", ErrRecipientCount, len(recipients), MaxRecipients)
	}
	for i, r := range recipients {
		if r == nil {
			return fmt.Errorf("%w: recipient %d is nil", ErrInvalidKey, i)
		}
		if r.scryptOf() != nil && len(recipients) > 1 {
			return fmt.Errorf("%w: recipient %d: %w", ErrScryptNotAlone, i, errScryptNotAlone)
		}
		if r.suite.PostQuantum() != recipients[0].suite.PostQuantum() {
			return fmt.Errorf("%w: %s recipient %d with %s recipient 0", ErrMixedSuites, r.suite, i, recipients[0].suite)
		}
	}
	if anonymous {
		// The default Opener refuses an anonymous envelope with more
		// trials than DefaultMaxAnonymousTrials; one identity of a suite
		// takes a trial per stanza of it.
		for _, s := range Suites {
			n := 0
			for _, r := range recipients {
				if r.suite == s {
					n++
				}
			}
			if n > DefaultMaxAnonymousTrials {
				return fmt.Errorf("%w: %d %s recipients; an anonymous envelope holds at most %d of one suite, as many trial decryptions as a reader allows by default (Opener.MaxAnonymousTrials): seal it with key identifiers, or to fewer recipients", ErrAnonymousLimit, n, s, DefaultMaxAnonymousTrials)
			}
		}
		if err := checkRSATrials(recipients, "an anonymous"); err != nil {
			return err
		}
	}
	dup := func(i, j int) error {
		if recipients[i].equal(recipients[j]) {
			return fmt.Errorf("%w: recipients %d and %d (%s)", ErrDuplicateRecipient, j, i, recipients[i])
		}
		if !identified {
			return nil
		}
		return fmt.Errorf("%w: recipients %d and %d have the same key identifier %x", ErrDuplicateRecipient, j, i, recipients[i].id)
	}
	if len(recipients) <= 32 {
		// Few recipients: compare pairs, without allocating.
		for i, r := range recipients {
			for j, o := range recipients[:i] {
				if o.id == r.id && o.suite == r.suite {
					if err := dup(i, j); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	type recipientID struct {
		suite Suite
		id    [format.KeyIDSize]byte
	}
	seen := make(map[recipientID]int, len(recipients))
	for i, r := range recipients {
		if j, ok := seen[recipientID{r.suite, r.id}]; ok {
			// Identifiers collide: compare the keys of every earlier
			// recipient with this identifier (anonymous envelopes may hold
			// distinct keys whose identifiers collide).
			for k := j; k < i; k++ {
				if recipients[k].id == r.id && recipients[k].suite == r.suite {
					if err := dup(i, k); err != nil {
						return err
					}
				}
			}
			continue
		}
		seen[recipientID{r.suite, r.id}] = i
	}
	return nil
}

// checkRSATrials refuses more ssh-rsa recipients than a default Opener
// tries in an envelope of the kind what names (anonymous or private),
// whose ssh-rsa stanzas carry no key identifier.
func checkRSATrials(recipients []*Recipient, what string) error {
	n := 0
	for _, r := range recipients {
		if r.rsaPub() != nil {
			n++
		}
	}
	if n*rsaTrials > DefaultMaxAnonymousTrials {
		return fmt.Errorf("%w: %d ssh-rsa recipients; %s envelope holds at most %d, since each costs a reader %d trials of Opener.MaxAnonymousTrials: seal it with key identifiers, or to fewer recipients", ErrAnonymousLimit, n, what, DefaultMaxAnonymousTrials/rsaTrials, rsaTrials)
	}
	return nil
}

// A plan is one stanza to write: its type, body size, and what fills it.
type plan struct {
	typ   byte
	size  int
	heavy bool // a key agreement: run in the parallel window if allowed
	r     *Recipient
	cs    *cipherSuite
	eph   *hpke.PrivateKey // StanzaEphemeral and StanzaShared
	// heph is the hybrid suite's shared X25519 ephemeral key, in a
	// private envelope's StanzaEphemeral and StanzaShared of that suite.
	heph *hpke.HybridEphemeral
	// ctPQ and tag are a private hybrid stanza's ML-KEM-768 ciphertext
	// and tag, where hybridItems computed them beside its item.
	ctPQ, tag []byte
	item      *precomputed // a precomputed StanzaHPKE
	epoch     uint32       // StanzaChannel
	salt      [format.SaltSize]byte
	// ageEnc is a StanzaAge's age stanza, encoded; secret is what it
	// wraps, the envelope's.
	ageEnc, secret []byte
	// channel is the cached channel key of a StanzaChannel, if plans
	// found it or batchAgreements looked it up.
	channel cipher.AEAD
}

// fill appends the plan's stanza body to dst.
func (p *plan) fill(s *Sealer, dst, preamble, fileKey []byte) ([]byte, error) {
	anon := s.Anonymous
	switch {
	case p.typ == format.StanzaEphemeral && p.heph != nil:
		return format.AppendEphemeral(dst, uint16(p.r.suite), p.heph.PublicKey()), nil
	case p.typ == format.StanzaEphemeral:
		return format.AppendEphemeral(dst, uint16(p.r.suite), p.eph.PublicKey()), nil
	case p.typ == format.StanzaShared && p.heph != nil:
		if p.item == nil {
			if err := p.encapHybrid(preamble); err != nil {
				return nil, err
			}
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(p.r.suite))
		return p.item.ctx.Seal(append(append(dst, p.tag...), p.ctPQ...), preamble, fileKey)
	case p.typ == format.StanzaShared && s.private():
		it := p.item
		if it == nil {
			ctx, err := p.cs.senderContext(p.eph, p.r)
			if err != nil {
				return nil, err
			}
			it = &precomputed{ctx: ctx}
		}
		return it.sealTagged(dst, uint16(p.r.suite), preamble, fileKey)
	case p.typ == format.StanzaShared && p.item == nil:
		return p.cs.wrapShared(dst, p.r, p.eph, preamble, fileKey, anon)
	case p.typ == format.StanzaChannel:
		return s.Keyring.sealChannel(dst, p.r, p.epoch, p.salt, s.aead(), p.channel, preamble, fileKey)
	case p.typ == format.StanzaRSA:
		return p.r.wrapRSA(dst, preamble, fileKey, anon || s.private())
	case p.typ == format.StanzaScrypt:
		return p.r.wrapScrypt(dst, preamble, fileKey, s.aead())
	case p.typ == format.StanzaAge:
		return sealAge(dst, p.ageEnc, p.secret, preamble, fileKey, s.aead())
	case p.item != nil:
		return p.item.seal(appendPrefix(dst, p.r, anon), preamble, fileKey)
	}
	return p.cs.wrap(dst, p.r, preamble, fileKey, anon)
}

// plans returns the stanzas for recipients under the Sealer's strategy.
func (s *Sealer) plans(recipients []*Recipient, secret []byte) ([]plan, error) {
	aead, anon := s.aead(), s.Anonymous
	switch s.Strategy {
	case Precomputed:
		if s.Precomputer == nil {
			return nil, errors.New("fanseal: the Precomputed strategy needs a Sealer.Precomputer")
		}
	case Channel:
		if s.Keyring == nil {
			return nil, errors.New("fanseal: the Channel strategy needs a Sealer.Keyring")
		}
		if anon {
			return nil, fmt.Errorf("%w: channel stanzas name their sender and recipient; not in an anonymous envelope", ErrUnsupported)
		}
	}
	shared := s.Strategy == Shared || s.Strategy == SharedParallel || s.private()
	ps := make([]plan, 0, len(recipients)+1)
	var ephemerals map[Suite]*hpke.PrivateKey
	var hybrid *hpke.HybridEphemeral
	var cs *cipherSuite
	var peers []sendingPeer
	var epoch uint32
	var salt [format.SaltSize]byte
	if s.Strategy == Channel {
		peers, epoch, salt = s.Keyring.senders(recipients, aead)
	}
	ageStanzas := 0
	for i, r := range recipients {
		switch r.stanzaType() {
		case format.StanzaRSA:
			ps = append(ps, plan{typ: format.StanzaRSA, size: r.rsaSize(anon || s.private()), heavy: true, r: r})
			continue
		case format.StanzaScrypt:
			ps = append(ps, plan{typ: format.StanzaScrypt, size: format.ScryptSize, heavy: true, r: r})
			continue
		case format.StanzaAge:
			encs, err := r.ageWrap(secret)
			if err != nil {
				return nil, fmt.Errorf("recipient %d: %w", i, err)
			}
			for _, enc := range encs {
				ps = append(ps, plan{typ: format.StanzaAge, size: len(enc) + format.WrappedSize, r: r, ageEnc: enc, secret: secret})
			}
			if ageStanzas += len(encs); ageStanzas > DefaultMaxAnonymousTrials {
				return nil, fmt.Errorf("%w: %d age stanzas; a reader with one age identity allows at most %d (Opener.MaxAnonymousTrials)", ErrAnonymousLimit, ageStanzas, DefaultMaxAnonymousTrials)
			}
			continue
		}
		if cs == nil || cs.suite != r.suite {
			var err error
			if cs, err = lookupSuite(r.suite, aead); err != nil {
				return nil, err
			}
		}
		encSize, _ := format.EncSize(uint16(r.suite))
		fresh := plan{typ: format.StanzaHPKE, size: format.HPKESize(encSize, anon), heavy: true, r: r, cs: cs}
		switch {
		case shared && cs.kem != nil:
			eph := ephemerals[r.suite]
			if eph == nil {
				// Its public key is computed when first needed, beside
				// the agreements if they are batched.
				eph = cs.kem.NewEphemeral()
				if ephemerals == nil {
					ephemerals = map[Suite]*hpke.PrivateKey{}
				}
				ephemerals[r.suite] = eph
				// The ephemeral stanza precedes the stanzas that use it.
				ps = append(ps, plan{typ: format.StanzaEphemeral, size: 2 + cs.kem.EncSize(), r: r, eph: eph})
			}
			ps = append(ps, plan{typ: format.StanzaShared, size: format.SharedSize(anon), heavy: true, r: r, cs: cs, eph: eph})
		case s.private() && cs.pq:
			if hybrid == nil {
				var err error
				if hybrid, err = hpke.NewHybridEphemeral(); err != nil {
					return nil, err
				}
				ps = append(ps, plan{typ: format.StanzaEphemeral, size: 2 + format.HybridEphemeralSize, r: r, heph: hybrid})
			}
			ps = append(ps, plan{typ: format.StanzaShared, size: format.HybridSharedSize, heavy: true, r: r, cs: cs, heph: hybrid})
		case s.Strategy == Precomputed:
			if it := s.Precomputer.take(r, aead); it != nil {
				ps = append(ps, plan{typ: format.StanzaHPKE, size: format.HPKESize(len(it.enc), anon), r: r, item: it})
			} else {
				ps = append(ps, fresh)
			}
		case peers != nil && peers[i].peer != nil:
			ps = append(ps, plan{typ: format.StanzaChannel, size: format.ChannelSize, r: peers[i].peer, epoch: epoch, salt: salt, channel: peers[i].aead})
		default:
			ps = append(ps, fresh)
		}
	}
	if s.private() {
		ps = shuffleShared(ps)
	}
	return ps, nil
}

// header builds the header and MAC of a new envelope and returns them with
// the payload AEAD.
//
// tries counts the seals of this envelope so far (see tagsCollide).
func (s *Sealer) header(recipients []*Recipient, tries int) ([]byte, cipher.AEAD, error) {
	if err := checkRecipients(recipients, s.Anonymous, !s.Anonymous && !s.private()); err != nil {
		return nil, nil, err
	}
	if s.private() {
		if err := s.checkPrivate(recipients); err != nil {
			return nil, nil, err
		}
	}
	secret := make([]byte, AgeSecretSize)
	defer clear(secret)
	rand.Read(secret)
	ps, err := s.plans(recipients, secret)
	if err != nil {
		return nil, nil, err
	}
	p := format.Preamble{AEAD: uint16(s.aead()), Count: len(ps)}
	if s.Anonymous {
		p.Flags |= format.FlagAnonymous
	}
	if s.private() {
		p.Flags |= format.FlagPrivate
	}
	offsets := make([]int, len(ps)+1)
	offsets[0] = format.PreambleSize
	heavy := 0
	for i, pl := range ps {
		offsets[i+1] = offsets[i] + format.StanzaSize(pl.size)
		if pl.heavy {
			heavy++
		}
	}
	if offsets[len(ps)] > format.MaxHeaderSize {
		return nil, nil, fmt.Errorf("%w: header of %d bytes exceeds %d", ErrRecipientCount, offsets[len(ps)], format.MaxHeaderSize)
	}

	if s.Strategy != Sequential {
		// Gather the key agreements into passes, where they pay.
		n, err := s.batchAgreements(ps, s.Strategy != Shared && s.parallelism() > 1)
		if err != nil {
			return nil, nil, err
		}
		heavy -= n
	}
	rand.Read(p.Nonce[:])
	if s.Strategy != Sequential {
		// The private hybrid stanzas' X25519 halves in passes,
		// their encapsulations meanwhile, and their tags, which bind the
		// preamble.
		n, err := s.hybridItems(ps, p.Append(nil), s.Strategy != Shared && s.parallelism() > 1)
		if err != nil {
			return nil, nil, err
		}
		heavy -= n
	}

	fileKey := make([]byte, format.FileKeySize)
	defer clear(fileKey)
	rand.Read(fileKey)

	// Room for the MAC and, for SealBytes, a short payload.
	hdr := make([]byte, offsets[len(ps)], offsets[len(ps)]+format.MACSize+256)
	preamble := p.Append(hdr[:0])

	// Each stanza is written in place into its own disjoint part of hdr, so
	// the parallel strategies need no further synchronisation.
	fill := func(i int) error {
		st := hdr[offsets[i]:offsets[i]:offsets[i+1]]
		st = format.AppendStanzaHeader(st, ps[i].typ, ps[i].size)
		st, err := ps[i].fill(s, st, preamble, fileKey)
		if err != nil {
			return err
		}
		if len(st) != offsets[i+1]-offsets[i] || &st[0] != &hdr[offsets[i]] {
			panic("fanseal: stanza size mismatch")
		}
		return nil
	}
	parallel := s.Strategy != Sequential && s.Strategy != Shared && s.parallelism() > 1 && heavy > 1
	// Of the stanzas that fail, the first is named, whichever goroutine
	// finishes first.
	var g errgroup.Group
	g.SetLimit(s.parallelism())
	var failed failures
	for i := range ps {
		if parallel && ps[i].heavy {
			g.Go(func() error {
				if err := fill(i); err != nil {
					failed.add(i, err)
				}
				return nil
			})
		} else if err := fill(i); err != nil {
			failed.add(i, err)
			break
		}
	}
	g.Wait()
	if failed.err != nil {
		return nil, nil, failed.err
	}

	if s.private() && tagsCollide(hdr) {
		// Two recipients of one suite drew one tag (2^-64 a pair), which
		// readers refuse: seal again, with new ephemeral keys. Distinct
		// recipients never share a tag but by chance (checkPrivate
		// refuses the hybrid keys that would), so a few tries suffice.
		if tries >= maxSealTries {
			return nil, nil, fmt.Errorf("fanseal: %d seals in a row drew two equal tags", tries)
		}
		return s.header(recipients, tries+1)
	}
	macKey, aead, err := envelopeKeys(fileKey, p.Nonce[:], p.AEAD)
	if err != nil {
		return nil, nil, err
	}
	defer clear(macKey)
	hdr = appendMAC(hdr, hdr, macKey)
	if s.Cache != nil {
		s.Cache.put([32]byte(hdr[len(hdr)-format.MACSize:]), fileKey, recipients...)
	}
	return hdr, aead, nil
}

// stanzaError reports a failure to seal stanza i; a recipient key that
// cannot be sealed to (a low-order X25519 point) is ErrInvalidKey.
func stanzaError(i int, err error) error {
	if errors.Is(err, hpke.ErrInvalidKey) {
		return fmt.Errorf("sealing stanza %d: %w: %w", i, ErrInvalidKey, err)
	}
	return fmt.Errorf("sealing stanza %d: %w", i, err)
}

// envelopeKeys derives the header MAC key and the payload AEAD (of id
// aeadID) from the file key with HKDF-SHA256, salted with the envelope
// nonce: one HKDF-Extract and two HKDF-Expand with different info, the
// same as two HKDF calls. Sealing and opening both start here.
func envelopeKeys(fileKey, nonce []byte, aeadID uint16) (macKey []byte, payload cipher.AEAD, err error) {
	keys := hpke.HKDF32(fileKey, nonce, headerKeyInfo, payloadKeyInfo)
	macKey, payloadKey := keys[0], keys[1]
	defer clear(payloadKey) // the AEAD keeps its own copy
	if payload, err = hpke.NewAEAD(aeadID, payloadKey); err != nil {
		return nil, nil, err
	}
	return macKey, payload, nil
}

// appendMAC appends HMAC-SHA256(macKey, hdr) to dst: the header MAC.
func appendMAC(dst, hdr, macKey []byte) []byte { return hpke.AppendHMAC(dst, macKey, hdr) }
