package fanseal

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
	"github.com/fanseal/fanseal/internal/stream"
)

// A part makes one stanza of a test envelope from the envelope's preamble
// and file key.
type part func(t *testing.T, preamble, fileKey []byte, anon bool) (typ byte, body []byte)

// build assembles an envelope from parts with a valid header MAC and the
// payload "payload", so that a refusal can only come from the framing.
func build(t *testing.T, anon bool, parts ...part) []byte {
	t.Helper()
	p := format.Preamble{AEAD: uint16(AES256GCM), Count: len(parts)}
	if anon {
		p.Flags = format.FlagAnonymous
	}
	rand.Read(p.Nonce[:])
	fileKey := randomBytes(format.FileKeySize)
	raw := p.Append(nil)
	preamble := bytes.Clone(raw)
	for _, mk := range parts {
		typ, body := mk(t, preamble, fileKey, anon)
		raw = append(format.AppendStanzaHeader(raw, typ, len(body)), body...)
	}
	macKey, aead, err := envelopeKeys(fileKey, p.Nonce[:], p.AEAD)
	if err != nil {
		t.Fatal(err)
	}
	return stream.SealParallel(aead, appendMAC(raw, raw, macKey), []byte("payload"), 1)
}

// to is an HPKE stanza that wraps the envelope's file key for r.
func to(r *Recipient) part { return toWithKey(r, nil) }

// toWithKey is an HPKE stanza for r that wraps key instead of the file key
// (the file key if key is nil).
func toWithKey(r *Recipient, key []byte) part {
	return func(t *testing.T, preamble, fileKey []byte, anon bool) (byte, []byte) {
		t.Helper()
		cs, _ := lookupSuite(r.suite, AES256GCM)
		if key != nil {
			fileKey = key
		}
		body, err := cs.wrap(nil, r, preamble, fileKey, anon)
		if err != nil {
			t.Fatal(err)
		}
		return format.StanzaHPKE, body
	}
}

// raw is a stanza with the given type and body.
func raw(typ byte, body []byte) part {
	return func(*testing.T, []byte, []byte, bool) (byte, []byte) { return typ, body }
}

// body concatenates a suite and byte strings into a stanza body.
func body(suite Suite, rest ...[]byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(suite))
	for _, r := range rest {
		b = append(b, r...)
	}
	return b
}

func newEphemeral(t *testing.T, s Suite) *hpke.PrivateKey {
	kem, _ := hpke.NewKEM(uint16(s))
	eph, err := kem.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return eph
}

// ephemeral is the ephemeral stanza of eph.
func ephemeral(s Suite, eph *hpke.PrivateKey) part {
	return raw(format.StanzaEphemeral, format.AppendEphemeral(nil, uint16(s), eph.PublicKey()))
}

// shared is a shared stanza for r under the ephemeral key eph.
func shared(r *Recipient, eph *hpke.PrivateKey) part {
	return func(t *testing.T, preamble, fileKey []byte, anon bool) (byte, []byte) {
		t.Helper()
		cs, _ := lookupSuite(r.suite, AES256GCM)
		body, err := cs.wrapShared(nil, r, eph, preamble, fileKey, anon)
		if err != nil {
			t.Fatal(err)
		}
		return format.StanzaShared, body
	}
}

// TestReaderRejects checks that the reader refuses every envelope that
// docs/FORMAT.md calls malformed, before any key agreement, whichever
// identity opens it and wherever the fault is: before or after the
// reader's own good stanza, in stanzas for others.
func TestReaderRejects(t *testing.T) {
	xs, xr := identities(t, X25519, 3)
	ps, pr := identities(t, P256, 1)
	qs, qr := identities(t, MLKEM768X25519, 2)
	me, other, stranger := xs[0], xs[1], xs[2]
	eph := newEphemeral(t, X25519)
	id := func(r *Recipient) []byte { return r.id[:] }
	ct := randomBytes(format.WrappedSize)
	unknownRecipients := func(n int) []part {
		ps := make([]part, n)
		for i := range ps {
			var kid [8]byte
			binary.BigEndian.PutUint64(kid[:], uint64(i))
			ps[i] = raw(format.StanzaHPKE, body(0x7777, kid[:], ct))
		}
		return ps
	}
	var nineEphemerals []part
	for s := Suite(0x7000); s < 0x7009; s++ {
		nineEphemerals = append(nineEphemerals, raw(format.StanzaEphemeral, body(s, randomBytes(32))),
			raw(format.StanzaShared, body(s, randomBytes(8), ct)))
	}
	for _, tc := range []struct {
		name   string
		anon   bool
		parts  []part
		also   error // a second sentinel the error must match
		openBy []*Identity
	}{
		{name: "my id with a wrong length before my stanza", parts: []part{raw(1, body(X25519, id(xr[0]), randomBytes(70))), to(xr[0])}},
		{name: "wrong length after my stanza", parts: []part{to(xr[0]), raw(1, body(X25519, id(xr[1]), randomBytes(90)))}},
		{name: "another suite's wrong length", parts: []part{to(xr[0]), raw(1, body(P256, id(pr[0]), randomBytes(80)))}},
		{name: "orphan shared stanza after mine", parts: []part{to(xr[0]), raw(3, body(X25519, id(xr[1]), ct))}},
		{name: "two ephemeral stanzas of a suite", parts: []part{to(xr[0]), ephemeral(X25519, eph), ephemeral(X25519, eph), shared(xr[1], eph)}},
		{name: "shared stanza before its ephemeral", parts: []part{to(xr[0]), shared(xr[1], eph), ephemeral(X25519, eph)}},
		{name: "P-256 shared stanza without ephemeral", parts: []part{to(xr[0]), raw(3, body(P256, id(pr[0]), ct))}},
		{name: "unused ephemeral stanza", parts: []part{to(xr[0]), ephemeral(X25519, eph)}},
		{name: "nine ephemeral stanzas", parts: append([]part{to(xr[0])}, nineEphemerals...)},
		{name: "post-quantum ephemeral stanza", parts: []part{to(qr[0]), raw(2, body(MLKEM768X25519, randomBytes(1120))), raw(3, body(MLKEM768X25519, id(qr[1]), ct))}, openBy: qs},
		{name: "shared stanza of the wrong length", parts: []part{ephemeral(X25519, eph), raw(3, body(X25519, id(xr[1]), ct[:40])), to(xr[0])}},
		{name: "stanza too short for its identifier", parts: []part{to(xr[0]), raw(1, body(X25519, []byte{1, 2, 3}))}},
		{name: "stanza too short for its suite", parts: []part{raw(4, []byte{0}), to(xr[0])}},
		{name: "channel stanza of the wrong length", parts: []part{to(xr[0]), raw(4, body(X25519, id(xr[1]), randomBytes(60)))}},
		{name: "post-quantum channel stanza", parts: []part{to(qr[0]), raw(4, body(MLKEM768X25519, id(qr[1]), randomBytes(format.ChannelSize-10)))}, openBy: qs},
		{name: "anonymous: wrong length of my suite before mine", anon: true, parts: []part{raw(1, body(X25519, randomBytes(70))), to(xr[0])}},
		{name: "anonymous: channel stanza", anon: true, parts: []part{to(xr[0]), raw(4, body(X25519, id(xr[1]), randomBytes(format.ChannelSize-10)))}},
		{name: "two stanzas for my key", parts: []part{to(xr[0]), to(xr[0])}, also: ErrDuplicateRecipient},
		{name: "two stanzas for another key", parts: []part{to(xr[1]), to(xr[0]), to(xr[1])}, also: ErrDuplicateRecipient},
		{name: "classical stanza, post-quantum reader", parts: []part{to(qr[0]), to(xr[1])}, also: ErrMixedSuites, openBy: []*Identity{qs[0], xs[1], qs[1]}},
		{name: "more than 10 000 recipient stanzas", parts: append([]part{to(xr[0])}, unknownRecipients(MaxRecipients)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := build(t, tc.anon, tc.parts...)
			openBy := tc.openBy
			if openBy == nil {
				openBy = []*Identity{me, other, stranger, ps[0]}
			}
			for _, ident := range openBy {
				before := keyAgreements.Load()
				_, err := OpenBytes(env, ident)
				if !errors.Is(err, ErrMalformed) || tc.also != nil && !errors.Is(err, tc.also) {
					t.Errorf("OpenBytes by %s…: %v, want %v", ident.Recipient().String()[:20], err, ErrMalformed)
				}
				if _, err := Open(bytes.NewReader(env), ident); !errors.Is(err, ErrMalformed) {
					t.Errorf("Open by %s…: %v", ident.Recipient().String()[:20], err)
				}
				if n := keyAgreements.Load() - before; n != 0 {
					t.Errorf("%d key agreements before refusing", n)
				}
			}
		})
	}
}

// TestReaderSkips opens envelopes that hold stanzas the reader may skip:
// the controls of TestReaderRejects, built the same way.
func TestReaderSkips(t *testing.T) {
	xs, xr := identities(t, X25519, 2)
	eph := newEphemeral(t, X25519)
	for _, tc := range []struct {
		name  string
		anon  bool
		parts []part
	}{
		{"unknown stanza type", false, []part{raw(0x09, []byte("anything")), to(xr[0]), raw(0xff, nil)}},
		{"unknown suite", false, []part{raw(1, body(0x7777, randomBytes(8))), to(xr[0]), raw(2, body(0x7777)), raw(3, body(0x7777, randomBytes(8), randomBytes(48)))}},
		{"shared stanzas", false, []part{ephemeral(X25519, eph), shared(xr[1], eph), shared(xr[0], eph)}},
		{"anonymous", true, []part{to(xr[1]), to(xr[0])}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := build(t, tc.anon, tc.parts...)
			mustOpen(t, env, []byte("payload"), xs[0])
		})
	}
}

// TestForgedIdentifiersBounded forges 1 000 stanzas that carry a victim's
// public key identifier: refusing the envelope costs no key agreement.
func TestForgedIdentifiersBounded(t *testing.T) {
	xs, xr := identities(t, X25519, 1)
	parts := []part{to(xr[0])}
	for range 1000 {
		parts = append(parts, raw(1, body(X25519, xr[0].id[:], randomBytes(32+48))))
	}
	env := build(t, false, parts...)
	before := keyAgreements.Load()
	if _, err := OpenBytes(env, xs[0]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("OpenBytes: %v", err)
	}
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("the forged envelope cost %d key agreements", n)
	}
}

// TestAnonymousTrialLimit: an anonymous envelope that would take more
// trial decryptions than the Opener allows is refused before any.
func TestAnonymousTrialLimit(t *testing.T) {
	xs, xr := identities(t, X25519, 12)
	env := mustSeal(t, &Sealer{Anonymous: true}, []byte("x"), xr...)
	before := keyAgreements.Load()
	if _, err := (&Opener{MaxAnonymousTrials: 11}).OpenBytes(env, xs[11]); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("12 stanzas, limit 11: %v", err)
	}
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("%d key agreements before refusing", n)
	}
	if _, err := (&Opener{MaxAnonymousTrials: 12}).OpenBytes(env, xs[11]); err != nil {
		t.Fatalf("12 stanzas, limit 12: %v", err)
	}
	// The default: DefaultMaxAnonymousTrials.
	parts := []part{to(xr[0])}
	for range DefaultMaxAnonymousTrials {
		parts = append(parts, raw(1, body(X25519, randomBytes(32+48))))
	}
	big := build(t, true, parts...)
	before = keyAgreements.Load()
	if _, err := OpenBytes(big, xs[0]); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("%d anonymous stanzas: %v", len(parts), err)
	}
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("%d key agreements before refusing", n)
	}
}

// TestWrongFileKeyKeepsLooking: a stanza that opens to a key that fails
// the header MAC does not end the search.
func TestWrongFileKeyKeepsLooking(t *testing.T) {
	xs, xr := identities(t, X25519, 2)
	wrong := randomBytes(format.FileKeySize)
	env := build(t, false, toWithKey(xr[0], wrong), to(xr[1]))
	before := keyAgreements.Load()
	mustOpen(t, env, []byte("payload"), xs[0], xs[1])
	if n := keyAgreements.Load() - before; n != 2 {
		t.Fatalf("%d key agreements, want 2 (one per identity)", n)
	}
	if _, err := OpenBytes(env, xs[0]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("only the identity with the wrong key: %v", err)
	}
	// Anonymous: a stanza for me with a wrong key, then my real one.
	anon := build(t, true, toWithKey(xr[0], wrong), to(xr[0]))
	mustOpen(t, anon, []byte("payload"), xs[0])
	anon = build(t, true, to(xr[1]), toWithKey(xr[0], wrong))
	if _, err := OpenBytes(anon, xs[0]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("anonymous, only a wrong key for me: %v", err)
	}
}

// TestOpenIdentitiesOnce: an identity given twice, or given and held by
// the Keyring, costs one key agreement.
func TestOpenIdentitiesOnce(t *testing.T) {
	xs, xr := identities(t, X25519, 3)
	env := mustSeal(t, new(Sealer), []byte("x"), xr[1], xr[2])
	kr, _ := NewKeyring(xs[0], 0)
	before := keyAgreements.Load()
	if _, err := (&Opener{Keyring: kr}).OpenBytes(env, xs[0], xs[0], nil); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("stranger: %v", err)
	}
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("%d key agreements for a stranger", n)
	}
	copyOf, _ := NewIdentity(X25519, xs[1].priv)
	before = keyAgreements.Load()
	mustOpen(t, env, []byte("x"), xs[1], copyOf, xs[1])
	if n := keyAgreements.Load() - before; n != 1 {
		t.Fatalf("%d key agreements for one identity given three times", n)
	}
	if _, err := OpenBytes(env); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("no identities: %v", err)
	}
}

// TestVerdictIndependentOfOrder: a stanza the reader cannot try (a
// channel stanza from a sender its keyring does not know, or of an epoch
// outside its window: rule 12) never hides one it tried that failed to
// open (rule 13). The verdict is authentication in either order.
func TestVerdictIndependentOfOrder(t *testing.T) {
	xs, xr := identities(t, X25519, 3)
	kr, _ := NewKeyring(xs[0], 0)
	kr.AddPeer(xr[2])
	stranger, _ := GenerateIdentity(X25519)
	wrong := randomBytes(format.FileKeySize)
	for name, untried := range map[string]part{
		"unknown sender": forgedChannel(stranger.r, xr[0], 0),
		"epoch outside":  forgedChannel(xr[2], xr[0], 5),
	} {
		failing := toWithKey(xr[1], wrong)
		for order, parts := range map[string][]part{"untried first": {untried, failing}, "untried last": {failing, untried}} {
			env := build(t, false, parts...)
			if _, err := (&Opener{Keyring: kr}).OpenBytes(env, xs[1]); !errors.Is(err, ErrAuthentication) {
				t.Errorf("%s, %s: %v, want %v", name, order, err, ErrAuthentication)
			}
		}
	}
}

// TestAnonymousMACWorkBounded: refusing an anonymous envelope costs at
// most a small constant times its header in header MACs. Anyone can seal
// stanzas to a public key, so an attacker can fill an anonymous envelope
// with MaxAnonymousTrials stanzas for the victim, each opening to another
// wrong file key, and pad its header towards 16 MiB with unknown stanzas:
// each such stanza costs the victim a MAC over the whole header, on top of
// its key agreement. At the limits that is 1 000 MACs over 16 MiB, about
// 8 s on one core for 16 MiB sent, against the "about 50 ms" the trial
// limit promises. Here: 64 such stanzas and a 1 MiB header.
func TestAnonymousMACWorkBounded(t *testing.T) {
	const maxHeaders = 16 // MACs over the whole header one Open may compute
	xs, xr := identities(t, X25519, 1)
	var parts []part
	for range 64 {
		parts = append(parts, toWithKey(xr[0], randomBytes(format.FileKeySize)))
	}
	for range 16 {
		parts = append(parts, raw(0x09, make([]byte, 65535)))
	}
	env := build(t, true, parts...)
	header := len(readHeader(t, env).Raw)
	before := headerMACBytes.Load()
	if _, err := OpenBytes(env, xs[0]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("OpenBytes: %v", err)
	}
	if n := headerMACBytes.Load() - before; n > maxHeaders*uint64(header) {
		t.Fatalf("refusing a %d-byte header took MACs over %d bytes (%d headers, at most %d allowed)", header, n, n/uint64(header), maxHeaders)
	}
}

// TestAnonymousSharedOneAgreement: in an anonymous envelope, every shared
// stanza of a suite uses the same ephemeral key, so trying them all costs
// one key agreement per identity, and counts once against the limit.
func TestAnonymousSharedOneAgreement(t *testing.T) {
	xs, xr := identities(t, X25519, 30)
	env := mustSeal(t, &Sealer{Strategy: SharedParallel, Anonymous: true}, []byte("x"), xr...)
	before := keyAgreements.Load()
	got, err := (&Opener{MaxAnonymousTrials: 1}).OpenBytes(env, xs[29])
	if err != nil || string(got) != "x" {
		t.Fatalf("the last of 30: %q, %v", got, err)
	}
	if n := keyAgreements.Load() - before; n != 1 {
		t.Fatalf("%d key agreements for 30 shared stanzas", n)
	}
	// A stranger, and an invalid ephemeral key: one key agreement too.
	stranger, _ := GenerateIdentity(X25519)
	h := readHeader(t, env)
	bad := bytes.Clone(env)
	copy(bad[format.PreambleSize+3+2:], make([]byte, 32)) // the ephemeral key: the point 0
	for _, tc := range []struct {
		env []byte
		id  *Identity
	}{{env, stranger}, {bad, xs[0]}} {
		before := keyAgreements.Load()
		if _, err := OpenBytes(tc.env, tc.id); !errors.Is(err, ErrNotRecipient) {
			t.Fatalf("%v", err)
		}
		if n := keyAgreements.Load() - before; n != 1 {
			t.Fatalf("%d key agreements", n)
		}
	}
	if h.Ephemeral(uint16(X25519)) == nil {
		t.Fatal("no ephemeral stanza")
	}
}
