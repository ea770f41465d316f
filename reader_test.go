package fanseal

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"testing"
	"time"

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
	env := mustSeal(t, &Sealer{Identified: true, Anonymous: true}, []byte("x"), xr...)
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

// TestWrongFileKey: a stanza for the reader that opens to a file key other
// than another of its stanzas does, or to one that fails the header MAC,
// comes only from a forger: the envelope is refused, whatever the order,
// after one key agreement per candidate and at most one header MAC.
func TestWrongFileKey(t *testing.T) {
	xs, xr := identities(t, X25519, 2)
	wrong := randomBytes(format.FileKeySize)
	for _, anon := range []bool{false, true} {
		for _, parts := range [][]part{
			{toWithKey(xr[0], wrong), to(xr[1])},
			{to(xr[1]), toWithKey(xr[0], wrong)},
		} {
			env := build(t, anon, parts...)
			before, macs := keyAgreements.Load(), headerMACBytes.Load()
			if _, err := OpenBytes(env, xs[0], xs[1]); !errors.Is(err, ErrAuthentication) {
				t.Fatalf("anonymous=%v: a wrong and a good file key: %v", anon, err)
			}
			want := uint64(2)
			if anon {
				want = 4 // each identity tries both stanzas
			}
			if n := keyAgreements.Load() - before; n != want {
				t.Fatalf("anonymous=%v: %d key agreements, want %d", anon, n, want)
			}
			if n := headerMACBytes.Load() - macs; n > uint64(len(readHeader(t, env).Raw)) {
				t.Fatalf("anonymous=%v: MACs over %d header bytes, more than one header", anon, n)
			}
			if _, err := OpenBytes(env, xs[0]); !errors.Is(err, ErrAuthentication) {
				t.Fatalf("anonymous=%v: only the identity with the wrong key: %v", anon, err)
			}
			if !anon {
				// The other identity's stanza is not a candidate of xs[1].
				mustOpen(t, env, []byte("payload"), xs[1])
			}
		}
	}
	// Anonymous, one identity: a stanza with a wrong key and its real one.
	for _, parts := range [][]part{{toWithKey(xr[0], wrong), to(xr[0])}, {to(xr[0]), toWithKey(xr[0], wrong)}} {
		if _, err := OpenBytes(build(t, true, parts...), xs[0]); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("anonymous, a wrong and a good stanza for one identity: %v", err)
		}
	}
	// Two identities whose stanzas open to the one file key: opened.
	mustOpen(t, build(t, false, to(xr[0]), to(xr[1])), []byte("payload"), xs[0], xs[1])
}

// TestWrongFileKeysOrder: five identities, four stanzas that open to
// wrong file keys and one good stanza. The verdict is the same wherever
// the good stanza is (before, it was success when the good stanza came
// early and authentication after four wrong keys), and refusing costs one
// key agreement per identity and no header MAC.
func TestWrongFileKeysOrder(t *testing.T) {
	xs, xr := identities(t, X25519, 5)
	for good := range 5 {
		var parts []part
		for i := range 5 {
			if i == good {
				parts = append(parts, to(xr[i]))
			} else {
				parts = append(parts, toWithKey(xr[i], randomBytes(format.FileKeySize)))
			}
		}
		env := build(t, false, parts...)
		before, macs := keyAgreements.Load(), headerMACBytes.Load()
		if _, err := OpenBytes(env, xs...); !errors.Is(err, ErrAuthentication) {
			t.Errorf("good stanza at %d: %v, want %v", good, err, ErrAuthentication)
		}
		if n := keyAgreements.Load() - before; n != 5 {
			t.Errorf("good stanza at %d: %d key agreements, want 5", good, n)
		}
		if n := headerMACBytes.Load() - macs; n != 0 {
			t.Errorf("good stanza at %d: MACs over %d bytes, want none", good, n)
		}
	}
}

// TestOpenIdentitiesOnce: an identity given twice, or given and held by
// the Keyring, costs one key agreement.
func TestOpenIdentitiesOnce(t *testing.T) {
	xs, xr := identities(t, X25519, 3)
	env := mustSeal(t, &Sealer{Identified: true}, []byte("x"), xr[1], xr[2])
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
// outside its window: rule 13) never hides one it tried that failed to
// open (rule 14). The verdict is authentication in either order.
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
// one key agreement per identity; each stanza still counts as a trial
// against the limit.
func TestAnonymousSharedOneAgreement(t *testing.T) {
	xs, xr := identities(t, X25519, 30)
	env := mustSeal(t, &Sealer{Identified: true, Strategy: SharedParallel, Anonymous: true}, []byte("x"), xr...)
	if _, err := (&Opener{MaxAnonymousTrials: 29}).OpenBytes(env, xs[29]); !errors.Is(err, ErrAnonymousLimit) {
		t.Fatalf("30 shared stanzas, limit 29: %v", err)
	}
	before := keyAgreements.Load()
	got, err := (&Opener{MaxAnonymousTrials: 30}).OpenBytes(env, xs[29])
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

// floodEnvelope is the envelope of an attacker who wants a reader's work:
// anonymous, one valid ephemeral key, and n shared stanzas of random
// bytes, built without any cryptography beyond that one key pair.
func floodEnvelope(t *testing.T, n int) []byte {
	eph := newEphemeral(t, X25519)
	parts := []part{ephemeral(X25519, eph)}
	for range n {
		parts = append(parts, raw(format.StanzaShared, body(X25519, randomBytes(format.WrappedSize))))
	}
	return build(t, true, parts...)
}

// TestAnonymousFloodBounded: one valid ephemeral key and 10 000 random
// shared stanzas, against a reader holding 16 X25519 identities, are
// 160 000 trials: refused before any key agreement or stanza open with
// ErrAnonymousLimit (before, the stanzas counted as one trial per
// identity, and the reader ran 160 000 key schedules and AEAD opens, 570
// ms on the machine of the report, to say it was not a recipient). An
// envelope within the limit costs exactly the trials counted.
func TestAnonymousFloodBounded(t *testing.T) {
	xs, _ := identities(t, X25519, 16)
	env := floodEnvelope(t, 10000)
	agreements, opens := keyAgreements.Load(), stanzaOpens.Load()
	start := time.Now()
	_, err := OpenBytes(env, xs...)
	elapsed := time.Since(start)
	if !errors.Is(err, ErrAnonymousLimit) || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("OpenBytes: %v, want ErrAnonymousLimit and ErrUnsupported", err)
	}
	if n, m := keyAgreements.Load()-agreements, stanzaOpens.Load()-opens; n != 0 || m != 0 {
		t.Fatalf("%d key agreements and %d stanza opens before refusing", n, m)
	}
	t.Logf("refused a %d-byte anonymous envelope of 10 000 shared stanzas for 16 identities in %v", len(env), elapsed)

	// 62 stanzas for 16 identities: 992 trials, within the limit, and
	// each costs what it counts: one stanza open, plus one key agreement
	// per identity for the shared ephemeral key.
	env = floodEnvelope(t, 62)
	agreements, opens = keyAgreements.Load(), stanzaOpens.Load()
	if _, err := OpenBytes(env, xs...); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("992 trials: %v", err)
	}
	if n, m := keyAgreements.Load()-agreements, stanzaOpens.Load()-opens; n != 16 || m != 992 {
		t.Fatalf("992 trials: %d key agreements and %d stanza opens, want 16 and 992", n, m)
	}
}
