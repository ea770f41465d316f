package fanseal

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/hmac"
	stdhpke "crypto/hpke"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha3"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/hpke"
)

// refOpenPrivate opens a private envelope from docs/FORMAT.md alone, with
// Go's crypto/hpke: it walks the stanzas by their framing, takes the
// ephemeral key of the identity's suite, exports the identity's tag from
// its HPKE context, opens the shared stanza that carries it and checks
// the header MAC under the file key. It returns the stanza's index and
// the file key, or -1 where no stanza carries the tag. info is the HPKE
// info of the identity's key form.
func refOpenPrivate(t *testing.T, env []byte, curve ecdh.Curve, kem uint16, priv, info []byte) (int, []byte) {
	t.Helper()
	preamble, stanzas, enc := refStanzas(t, env, kem)
	sk, err := curve.NewPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	hsk, err := stdhpke.NewDHKEMPrivateKey(sk)
	if err != nil {
		t.Fatal(err)
	}
	r, err := stdhpke.NewRecipient(enc, hsk, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), info)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := r.Export("fanseal/v1 tag"+string(preamble), 8)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range stanzas {
		if st.typ != 0x03 || binary.BigEndian.Uint16(st.body) != kem || !bytes.Equal(st.body[2:10], tag) {
			continue
		}
		fileKey, err := r.Open(preamble, st.body[10:])
		if err != nil {
			t.Fatalf("crypto/hpke cannot open the stanza of its tag: %v", err)
		}
		refCheckMAC(t, env, len(stanzas), fileKey)
		return i, fileKey
	}
	return -1, nil
}

type refStanza struct {
	typ  byte
	body []byte
}

// refStanzas walks a private envelope's stanzas by their framing and
// returns its preamble, its stanzas, and the body of its type 0x02 stanza
// of suite kem after the suite.
func refStanzas(t *testing.T, env []byte, kem uint16) (preamble []byte, stanzas []refStanza, eph []byte) {
	t.Helper()
	preamble = env[:29]
	if env[8]&4 == 0 {
		t.Fatal("the private flag (bit 2) is not set")
	}
	off := 29
	for range int(binary.BigEndian.Uint16(preamble[27:29])) {
		n := int(binary.BigEndian.Uint16(env[off+1 : off+3]))
		stanzas = append(stanzas, refStanza{env[off], env[off+3 : off+3+n]})
		off += 3 + n
	}
	for _, st := range stanzas {
		if st.typ == 0x02 && binary.BigEndian.Uint16(st.body) == kem {
			eph = st.body[2:]
		}
	}
	return preamble, stanzas, eph
}

// refCheckMAC checks the header MAC of env, whose header has count
// stanzas, under fileKey: HMAC-SHA256 keyed by HKDF-SHA256(file key, salt
// = the nonce, "fanseal/v1 header").
func refCheckMAC(t *testing.T, env []byte, count int, fileKey []byte) {
	t.Helper()
	off := 29
	for range count {
		off += 3 + int(binary.BigEndian.Uint16(env[off+1:off+3]))
	}
	macKey, err := hkdf.Key(sha256.New, fileKey, env[11:27], "fanseal/v1 header", 32)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, macKey)
	m.Write(env[:off])
	if !hmac.Equal(m.Sum(nil), env[off:off+32]) {
		t.Fatal("the header MAC does not verify under the stanza's file key")
	}
}

// refOpenHybrid opens a private envelope's hybrid stanza from
// docs/FORMAT.md alone: the X25519 private key from the seed as
// draft-ietf-hpke-pq expands it (bytes 64 to 96 of SHAKE256(seed)), its
// crypto/ecdh agreement with the type 0x02 key, the tag HKDF-SHA256(ss_X,
// info = "fanseal/v1 hybrid tag" || preamble || ct_X || pk_X), and
// crypto/hpke's MLKEM768-X25519 to open the stanza of that tag, whose
// enc is its ML-KEM-768 ciphertext followed by ct_X. It returns the
// stanza's index and the file key, or -1.
func refOpenHybrid(t *testing.T, env, seed []byte) (int, []byte) {
	t.Helper()
	preamble, stanzas, eph := refStanzas(t, env, 0x647a)
	if len(eph) != 32 {
		t.Fatalf("hybrid ephemeral key of %d bytes", len(eph))
	}
	expanded := make([]byte, 96)
	sh := sha3.NewSHAKE256()
	sh.Write(seed)
	sh.Read(expanded)
	ssX, pkX := refX25519(t, expanded[64:], eph)
	tag, err := hkdf.Key(sha256.New, ssX, nil, "fanseal/v1 hybrid tag"+string(preamble)+string(eph)+string(pkX), 8)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := stdhpke.MLKEM768X25519().NewPrivateKey(seed)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range stanzas {
		if st.typ != 0x03 || len(st.body) != 2+8+1088+48 || !bytes.Equal(st.body[2:10], tag) {
			continue
		}
		enc := append(bytes.Clone(st.body[10:10+1088]), eph...)
		r, err := stdhpke.NewRecipient(enc, sk, stdhpke.HKDFSHA256(), stdhpke.AES256GCM(), []byte("fanseal/v1 file key"))
		if err != nil {
			t.Fatal(err)
		}
		fileKey, err := r.Open(preamble, st.body[10+1088:])
		if err != nil {
			t.Fatalf("crypto/hpke cannot open the stanza of its tag: %v", err)
		}
		refCheckMAC(t, env, len(stanzas), fileKey)
		return i, fileKey
	}
	return -1, nil
}

// TestPrivateHybrid: a private envelope to 20 ML-KEM-768+X25519
// recipients holds one X25519 ephemeral key and 20 tagged stanzas; each
// recipient opens it with one key agreement, the reference finds each
// one's stanza by its tag and opens it with crypto/hpke; a stranger is
// not a recipient; a tampered ML-KEM ciphertext is an authentication
// failure for its recipient, and a hybrid shared stanza outside a private
// envelope is malformed.
func TestPrivateHybrid(t *testing.T) {
	ids, rs := identities(t, MLKEM768X25519, 20)
	for _, strategy := range []Strategy{Parallel, Sequential} {
		env := mustSeal(t, &Sealer{Strategy: strategy}, []byte("pq"), rs...)
		sts := stanzasOf(t, env)
		if len(sts) != 21 || sts[0].Type != format.StanzaEphemeral || len(sts[0].Body) != 34 {
			t.Fatalf("%s: %d stanzas, want one 34-byte ephemeral and 20 shared", strategy, len(sts))
		}
		for _, r := range rs {
			if bytes.Contains(env, r.id[:]) {
				t.Fatalf("%s: the envelope holds a recipient's key identifier", strategy)
			}
		}
		seen := map[int]bool{}
		for _, id := range ids {
			before := keyAgreements.Load()
			mustOpen(t, env, []byte("pq"), id)
			if n := keyAgreements.Load() - before; n != 1 {
				t.Fatalf("%s: an open took %d key agreements", strategy, n)
			}
			i, key := refOpenHybrid(t, env, id.priv)
			if i < 0 || key == nil || seen[i] {
				t.Fatalf("%s: the reference finds stanza %d", strategy, i)
			}
			seen[i] = true
		}
	}
	env := mustSeal(t, &Sealer{}, []byte("pq"), rs[:3]...)
	stranger, err := GenerateIdentity(MLKEM768X25519)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBytes(env, stranger); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("a stranger: %v", err)
	}
	i, _ := refOpenHybrid(t, env, ids[0].priv)
	off := format.PreambleSize
	for _, st := range stanzasOf(t, env)[:i] {
		off += 3 + len(st.Body)
	}
	tampered := bytes.Clone(env)
	tampered[off+3+10+500] ^= 1 // inside its ML-KEM-768 ciphertext
	if _, err := OpenBytes(tampered, ids[0]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("a tampered ML-KEM ciphertext: %v", err)
	}
	badEph := bytes.Clone(env)
	clear(badEph[format.PreambleSize+3+2 : format.PreambleSize+3+34])
	if _, err := OpenBytes(badEph, ids[1]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("a low-order ephemeral key: %v", err)
	}
	plain := bytes.Clone(env)
	plain[8] &^= format.FlagPrivate
	if _, err := OpenBytes(plain, ids[0]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("hybrid shared stanzas outside a private envelope: %v", err)
	}
}

// TestPrivateRoundTrip: a private envelope of every classical suite, to
// 20 recipients, opens for each of them with one key agreement; the
// crypto/hpke reference finds each recipient's stanza by its tag alone;
// the stanzas carry no key identifier; and two envelopes to one recipient
// give it two unrelated tags.
func TestPrivateRoundTrip(t *testing.T) {
	curves := map[Suite]ecdh.Curve{X25519: ecdh.X25519(), P256: ecdh.P256()}
	for _, s := range []Suite{X25519, P256, Secp256k1} {
		t.Run("suite="+s.String(), func(t *testing.T) {
			ids, rs := identities(t, s, 20)
			for _, strategy := range []Strategy{Parallel, Sequential, Shared, SharedParallel} {
				env := mustSeal(t, &Sealer{Strategy: strategy}, []byte("private"), rs...)
				if len(stanzasOf(t, env)) != 21 {
					t.Fatalf("%s: %d stanzas, want one ephemeral and 20 shared", strategy, len(stanzasOf(t, env)))
				}
				for _, r := range rs {
					if bytes.Contains(env, r.id[:]) {
						t.Fatalf("%s: the envelope holds a recipient's key identifier", strategy)
					}
				}
				for _, id := range ids {
					before := keyAgreements.Load()
					mustOpen(t, env, []byte("private"), id)
					if n := keyAgreements.Load() - before; n != 1 {
						t.Fatalf("%s: an open took %d key agreements", strategy, n)
					}
				}
				if curve := curves[s]; curve != nil {
					seen := map[int]bool{}
					for _, id := range ids {
						i, key := refOpenPrivate(t, env, curve, uint16(s), id.priv, []byte("fanseal/v1 file key"))
						if i < 0 || key == nil || seen[i] {
							t.Fatalf("%s: the reference finds stanza %d", strategy, i)
						}
						seen[i] = true
					}
				}
			}
			a := mustSeal(t, &Sealer{}, []byte("a"), rs[0])
			b := mustSeal(t, &Sealer{}, []byte("a"), rs[0])
			if ta, tb := stanzasOf(t, a)[1].Body[2:10], stanzasOf(t, b)[1].Body[2:10]; bytes.Equal(ta, tb) {
				t.Fatal("two envelopes give one recipient one tag")
			}
		})
	}
}

// TestPrivateSSHEd25519: an ssh-ed25519 recipient in a private envelope
// gets the tag of its own HPKE info, which the crypto/hpke reference
// derives; the X25519 identity of the same scalar is not its recipient.
func TestPrivateSSHEd25519(t *testing.T) {
	ids, rs := sshIdentities(t, 2)
	xids, xrs := identities(t, X25519, 2)
	env := mustSeal(t, &Sealer{}, []byte("ssh"), append(rs, xrs...)...)
	for _, id := range append(ids, xids...) {
		mustOpen(t, env, []byte("ssh"), id)
	}
	keyHash := sha256.Sum256(rs[0].ssh.wire)
	info := append([]byte("fanseal/v1 ssh-ed25519"), keyHash[:]...)
	if i, _ := refOpenPrivate(t, env, ecdh.X25519(), uint16(X25519), ids[0].priv, info); i < 0 {
		t.Fatal("the reference finds no stanza for the ssh-ed25519 key")
	}
	if i, _ := refOpenPrivate(t, env, ecdh.X25519(), uint16(X25519), ids[0].priv, []byte("fanseal/v1 file key")); i >= 0 {
		t.Fatal("the X25519 key of the ssh-ed25519 scalar has a stanza of its own")
	}
}

// TestPrivateVerdicts: a private envelope is refused, whoever reads it,
// when it holds what no private envelope may (an HPKE stanza, both flags,
// two stanzas with one tag); a tampered stanza is an authentication
// failure for every reader; a reader whose stanza was replaced is not a
// recipient, and no reader is when one was removed.
func TestPrivateVerdicts(t *testing.T) {
	ids, rs := identities(t, X25519, 3)
	env := mustSeal(t, &Sealer{}, []byte("v"), rs...)
	stranger, err := GenerateIdentity(X25519)
	if err != nil {
		t.Fatal(err)
	}
	other := []*Identity{stranger}
	if _, err := OpenBytes(env, stranger); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("another key: %v", err)
	}
	sts := stanzasOf(t, env)
	hdrEnd := format.PreambleSize
	offsets := []int{}
	for _, st := range sts {
		offsets = append(offsets, hdrEnd)
		hdrEnd += 3 + len(st.Body)
	}
	flip := func(at int) []byte {
		b := bytes.Clone(env)
		b[at] ^= 1
		return b
	}
	// The last byte of stanza 1's ciphertext: its reader's tag still
	// matches and its AEAD fails; the others' file key fails the MAC.
	tampered := flip(offsets[2] - 1)
	for _, id := range ids {
		if _, err := OpenBytes(tampered, id); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("a tampered stanza: %v", err)
		}
	}
	// Stanza 1's tag replaced: its reader is not a recipient, the
	// others' file key fails the MAC (what an active attacker learns:
	// SECURITY.md). Removing it instead changes the count, and so every
	// tag: no reader is then a recipient.
	replaced := bytes.Clone(env)
	copy(replaced[offsets[1]+3+2:], randomBytes(8))
	removed := append(bytes.Clone(env[:offsets[1]]), env[offsets[2]:]...)
	binary.BigEndian.PutUint16(removed[27:29], uint16(len(sts)-1))
	for _, id := range ids {
		if _, err := OpenBytes(removed, id); !errors.Is(err, ErrNotRecipient) {
			t.Fatalf("a removed stanza: %v", err)
		}
	}
	notRecipient := 0
	for _, id := range ids {
		_, err := OpenBytes(replaced, id)
		switch {
		case errors.Is(err, ErrNotRecipient):
			notRecipient++
		case !errors.Is(err, ErrAuthentication):
			t.Fatalf("a replaced stanza: %v", err)
		}
	}
	if notRecipient != 1 {
		t.Fatalf("%d readers lost their stanza, want 1", notRecipient)
	}
	// An ephemeral key that is not a usable point (all zeros: X25519's
	// output is then zero) fails every reader of its suite alike, a
	// stranger included, before any tag: no stanza is singled out.
	badEph := bytes.Clone(env)
	clear(badEph[offsets[0]+3+2 : offsets[1]])
	for _, id := range append(ids, other...) {
		if _, err := OpenBytes(badEph, id); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("an invalid ephemeral key: %v", err)
		}
	}
	// Both flags, and a flipped tag made equal to another's.
	both := bytes.Clone(env)
	both[8] |= format.FlagAnonymous
	if _, err := OpenBytes(both, ids[0]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("anonymous and private: %v", err)
	}
	dup := bytes.Clone(env)
	copy(dup[offsets[2]+3+2:offsets[2]+3+10], dup[offsets[1]+3+2:offsets[1]+3+10])
	for _, id := range append(ids, other...) {
		if _, err := OpenBytes(dup, id); !errors.Is(err, ErrMalformed) {
			t.Fatalf("two stanzas with one tag: %v", err)
		}
	}
	// An identified envelope's HPKE stanza under the private flag.
	plain := mustSeal(t, &Sealer{Identified: true}, []byte("v"), rs[0])
	plain[8] |= format.FlagPrivate
	if _, err := OpenBytes(plain, ids[0]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("an HPKE stanza in a private envelope: %v", err)
	}
}

// TestPrivateByDefault: the zero Sealer writes private envelopes, for
// every strategy that has a private form and every suite; Identified,
// Anonymous, and the Channel and Precomputed strategies write what they
// name, each opened by its recipient.
func TestPrivateByDefault(t *testing.T) {
	ids, rs := identities(t, X25519, 2)
	pc, err := NewPrecomputer(PrecomputeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	ring, err := NewKeyring(ids[0], 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := ring.AddPeer(rs[1]); err != nil {
		t.Fatal(err)
	}
	peer, err := NewKeyring(ids[1], 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := peer.AddPeer(rs[0]); err != nil {
		t.Fatal(err)
	}
	_, pq := identities(t, MLKEM768X25519, 2)
	for name, c := range map[string]struct {
		s     *Sealer
		rs    []*Recipient
		flags byte
		typ   byte // the type of the last stanza
	}{
		"zero":           {&Sealer{}, rs, format.FlagPrivate, format.StanzaShared},
		"sequential":     {&Sealer{Strategy: Sequential}, rs, format.FlagPrivate, format.StanzaShared},
		"post-quantum":   {&Sealer{}, pq, format.FlagPrivate, format.StanzaShared},
		"identified":     {&Sealer{Identified: true}, rs, 0, format.StanzaHPKE},
		"identified-pq":  {&Sealer{Identified: true}, pq, 0, format.StanzaHPKE},
		"anonymous":      {&Sealer{Anonymous: true}, rs, format.FlagAnonymous, format.StanzaHPKE},
		"precomputed":    {&Sealer{Strategy: Precomputed, Precomputer: pc}, rs, 0, format.StanzaHPKE},
		"channel":        {&Sealer{Strategy: Channel, Keyring: ring}, rs[1:], 0, format.StanzaChannel},
		"shared-private": {&Sealer{Strategy: Shared}, rs, format.FlagPrivate, format.StanzaShared},
	} {
		env, err := c.s.SealBytes([]byte("x"), c.rs...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sts := stanzasOf(t, env)
		if env[8] != c.flags || sts[len(sts)-1].Type != c.typ {
			t.Errorf("%s: flags 0x%02x, last stanza of type 0x%02x; want 0x%02x and 0x%02x", name, env[8], sts[len(sts)-1].Type, c.flags, c.typ)
		}
	}
	env, err := (&Sealer{Strategy: Channel, Keyring: ring}).SealBytes([]byte("c"), rs[1])
	if err != nil {
		t.Fatal(err)
	}
	if pt, err := (&Opener{Keyring: peer}).OpenBytes(env); err != nil || string(pt) != "c" {
		t.Fatalf("a channel envelope: %q, %v", pt, err)
	}
}

// TestPrivateOpenAllAndCache: OpenAll opens a batch of private envelopes,
// mixed with identified ones, each for its own recipients only; a session
// cache shared by a Sealer and an Opener answers a recipient of a private
// envelope without a key agreement, and never a stranger.
func TestPrivateOpenAllAndCache(t *testing.T) {
	ids, rs := identities(t, X25519, 3)
	var envs [][]byte
	for i := range 24 {
		s := &Sealer{Identified: i%3 == 0}
		envs = append(envs, mustSeal(t, s, []byte{byte(i)}, rs[i%2], rs[2]))
	}
	for who, id := range ids {
		out, errs := OpenAll(envs, id)
		for i := range envs {
			mine := who == 2 || i%2 == who
			switch {
			case mine && (errs[i] != nil || !bytes.Equal(out[i], []byte{byte(i)})):
				t.Fatalf("identity %d, envelope %d: %v", who, i, errs[i])
			case !mine && !errors.Is(errs[i], ErrNotRecipient):
				t.Fatalf("identity %d, envelope %d: %v, want not a recipient", who, i, errs[i])
			}
		}
	}

	// Private hybrid envelopes: OpenAll computes the X25519 halves with
	// each envelope's ephemeral key ahead, eight to a pass where the
	// engine batches, and each envelope then finds its stanza by its tag.
	pids, prs := identities(t, MLKEM768X25519, 2)
	var pqs [][]byte
	for i := range 16 {
		pqs = append(pqs, mustSeal(t, &Sealer{}, []byte{byte(i)}, prs...))
	}
	before := passAgreements.Load()
	out, errs := OpenAll(pqs, pids[1])
	for i := range pqs {
		if errs[i] != nil || !bytes.Equal(out[i], []byte{byte(i)}) {
			t.Fatalf("post-quantum envelope %d: %v", i, errs[i])
		}
	}
	if n := passAgreements.Load() - before; hpke.HybridBatches() && n != 16 {
		t.Fatalf("%d of the 16 X25519 halves computed ahead", n)
	}

	cache := NewSessionCache(16, time.Minute)
	env := mustSeal(t, &Sealer{Cache: cache}, []byte("cached"), rs[0], rs[1])
	before = keyAgreements.Load()
	if pt, err := (&Opener{Cache: cache}).OpenBytes(env, ids[1]); err != nil || string(pt) != "cached" {
		t.Fatalf("a cached private envelope: %q, %v", pt, err)
	}
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("a cache hit took %d key agreements", n)
	}
	if _, err := (&Opener{Cache: cache}).OpenBytes(env, ids[2]); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("a stranger with the cache: %v", err)
	}
}

// TestPrivateSSHRSA: ssh-rsa, which has no tag, stands in a private
// envelope beside tagged stanzas without a key identifier, as in an
// anonymous envelope; its identity tries it (8 trials of the budget), an
// identified ssh-rsa stanza under the private flag is another modulus's
// stanza, and a
// private Sealer refuses more ssh-rsa recipients than a default Opener
// would try.
func TestPrivateSSHRSA(t *testing.T) {
	rid, rr := rsaIdentity(t)
	ids, rs := identities(t, X25519, 2)
	env := mustSeal(t, &Sealer{}, []byte("rsa"), append(rs, rr)...)
	for _, id := range append(ids, rid) {
		mustOpen(t, env, []byte("rsa"), id)
	}
	if bytes.Contains(env, rr.id[:]) {
		t.Fatal("the ssh-rsa stanza carries its key identifier")
	}
	for _, st := range stanzasOf(t, env) {
		if st.Type == format.StanzaRSA && len(st.Body) != rr.rsaPub().Size() {
			t.Fatalf("ssh-rsa stanza of %d bytes, want the bare %d-byte ciphertext", len(st.Body), rr.rsaPub().Size())
		}
	}
	if _, err := (&Opener{MaxAnonymousTrials: 7}).OpenBytes(env, rid); !errors.Is(err, ErrAnonymousLimit) {
		t.Fatalf("an ssh-rsa stanza against 7 trials: %v", err)
	}
	// An identified stanza under the private flag reads as a bare
	// ciphertext of 8 + 256 bytes: another modulus's, so not this key's.
	identified := mustSeal(t, &Sealer{Identified: true}, []byte("rsa"), rr)
	identified[8] |= format.FlagPrivate
	if _, err := OpenBytes(identified, rid); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("an identified ssh-rsa stanza in a private envelope: %v", err)
	}
	many := make([]*Recipient, DefaultMaxAnonymousTrials/rsaTrials+1)
	for i := range many {
		many[i] = rr
	}
	if err := (&Sealer{}).checkPrivate(many); !errors.Is(err, ErrAnonymousLimit) {
		t.Fatalf("%d ssh-rsa recipients: %v", len(many), err)
	}
}

// TestPrivateLockedIdentity: a passphrase-protected SSH identity beside
// an unlocked one is unlocked only when the unlocked one does not open a
// private envelope, which only a key agreement can tell; alone, it is
// unlocked once, and then opens private envelopes to it.
func TestPrivateLockedIdentity(t *testing.T) {
	for _, key := range []any{ed25519Key(t), rsaTestKey(t)} {
		id, count, _ := lockedIdentity(t, key)
		xids, xs := identities(t, X25519, 1)
		other := mustSeal(t, &Sealer{}, []byte("m"), xs[0])
		if got, err := OpenBytes(other, id, xids[0]); err != nil || string(got) != "m" || *count != 0 {
			t.Fatalf("%T: beside the envelope's key: %q, %v, asked %d", key, got, err, *count)
		}
		// Alone: an ssh-ed25519 key needs its agreement with the X25519
		// ephemeral key; an ssh-rsa key has no ssh-rsa stanza to try.
		want := 1
		if _, ok := key.(ed25519.PrivateKey); !ok {
			want = 0
		}
		if _, err := OpenBytes(other, id); !errors.Is(err, ErrNotRecipient) || *count != want {
			t.Fatalf("%T: alone, not for it: %v, asked %d, want %d", key, err, *count, want)
		}
		env := mustSeal(t, &Sealer{}, []byte("mine"), id.Recipient(), xs[0])
		if got, err := OpenBytes(env, id); err != nil || string(got) != "mine" || *count != 1 {
			t.Fatalf("%T: for it: %q, %v, asked %d", key, got, err, *count)
		}
	}
}

// TestStanzaFor: StanzaFor finds each recipient's stanza in a private
// envelope (where the reference finds it) and in an identified one,
// none for a stranger, and none in an anonymous envelope.
func TestStanzaFor(t *testing.T) {
	ids, rs := identities(t, X25519, 4)
	stranger, err := GenerateIdentity(X25519)
	if err != nil {
		t.Fatal(err)
	}
	env := mustSeal(t, &Sealer{}, []byte("x"), rs...)
	for _, id := range ids {
		want, _ := refOpenPrivate(t, env, ecdh.X25519(), uint16(X25519), id.priv, []byte("fanseal/v1 file key"))
		if got, err := StanzaFor(env, id); err != nil || got != want || got < 0 {
			t.Fatalf("private: StanzaFor = %d, %v; the reference finds %d", got, err, want)
		}
	}
	identified := mustSeal(t, &Sealer{Identified: true}, []byte("x"), rs...)
	for i, id := range ids {
		if got, err := StanzaFor(identified, id); err != nil || got != i {
			t.Fatalf("identified: StanzaFor = %d, %v; want %d", got, err, i)
		}
	}
	anon := mustSeal(t, &Sealer{Anonymous: true}, []byte("x"), rs...)
	for _, c := range []struct {
		env []byte
		id  *Identity
	}{{env, stranger}, {identified, stranger}, {anon, ids[0]}} {
		if got, err := StanzaFor(c.env, c.id); err != nil || got != -1 {
			t.Fatalf("StanzaFor = %d, %v; want -1", got, err)
		}
	}
	if _, err := StanzaFor(env[:40], ids[0]); !errors.Is(err, ErrTruncated) {
		t.Fatalf("a cut header: %v", err)
	}
}

// TestPrivateHybridLowOrder: a post-quantum recipient whose X25519 half is
// the low-order point 0 makes a private seal fail with ErrInvalidKey, as
// crypto/hpke's NewSender fails for it, batched (where the X25519 halves
// run eight to a pass) or not, on any number of goroutines.
func TestPrivateHybridLowOrder(t *testing.T) {
	_, good := identities(t, MLKEM768X25519, 19)
	rs := append(append(append([]*Recipient{}, good[1:12]...), lowOrderHybrid(t, good[0])), good[12:]...)
	for _, st := range []Strategy{Sequential, Parallel} {
		for _, parallelism := range []int{1, 2, 16} {
			before := batchedAgreements.Load()
			_, err := (&Sealer{Strategy: st, Parallelism: parallelism}).SealBytes([]byte("x"), rs...)
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "sealing stanza ") {
				t.Fatalf("%s on %d goroutines: %v, want an invalid key", st, parallelism, err)
			}
			if batched := batchedAgreements.Load() - before; st != Sequential && gathered(MLKEM768X25519, st, parallelism, len(rs)) && batched == 0 {
				t.Fatalf("%s: the X25519 halves did not run in a batch", st)
			}
		}
	}
	// Batched, every half is X25519 with the one ephemeral key: what the
	// reference opens (TestPrivateHybrid) and one pass per eight.
	before, passes := batchedAgreements.Load(), batchPasses.Load()
	env := mustSeal(t, &Sealer{}, []byte("pq"), good...)
	if want := uint64(ceilDiv(19, hpke.HybridBatchSize(19))); gathered(MLKEM768X25519, Parallel, runtime.GOMAXPROCS(0), 19) &&
		(batchedAgreements.Load()-before != 19 || batchPasses.Load()-passes != want) {
		t.Fatalf("19 halves in %d agreements and %d passes, want 19 in %d", batchedAgreements.Load()-before, batchPasses.Load()-passes, want)
	}
	ids, _ := identities(t, MLKEM768X25519, 19)
	for _, id := range ids {
		if i, _ := refOpenHybrid(t, env, id.priv); i < 0 {
			t.Fatal("the reference finds no stanza")
		}
	}
}

// TestPrivateSharedX25519Half: a post-quantum key made of another's
// X25519 half and an ML-KEM-768 key of its own would share its tags under
// every ephemeral key; a private seal to both refuses them at once
// (ErrDuplicateRecipient), where it would otherwise seal again forever,
// and an identified seal, which names both, seals them.
func TestPrivateSharedX25519Half(t *testing.T) {
	_, rs := identities(t, MLKEM768X25519, 2)
	raw := append(bytes.Clone(rs[1].raw[:len(rs[1].raw)-32]), rs[0].raw[len(rs[0].raw)-32:]...)
	crafted, err := NewRecipient(MLKEM768X25519, raw)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := SealBytes([]byte("x"), rs[0], crafted); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrDuplicateRecipient) {
			t.Fatalf("two keys with one X25519 half: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the seal does not return")
	}
	mustSeal(t, &Sealer{Identified: true}, []byte("x"), rs[0], crafted)
}

// TestPrivateOtherRSAKey: an ssh-rsa identity that is not a recipient of
// a private envelope holding another key's ssh-rsa stanza of its modulus
// size is not a recipient, as in an anonymous envelope: the stanza has no
// identifier that says it was this key's.
func TestPrivateOtherRSAKey(t *testing.T) {
	_, rr := rsaIdentity(t)
	_, xs := identities(t, X25519, 1)
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := sshKeyPair(t, k, "")
	other, err := ParseSSHIdentity(priv)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Sealer{{}, {Anonymous: true}, {Identified: true}} {
		env := mustSeal(t, s, []byte("rsa"), rr, xs[0])
		if _, err := OpenBytes(env, other); !errors.Is(err, ErrNotRecipient) {
			t.Fatalf("flags 0x%02x: another ssh-rsa key: %v", env[8], err)
		}
	}
}

// TestPrivateLockedBudget: a reader holding an unlocked and a locked
// identity counts the trial budget of both before any key agreement, and
// does not unlock the locked one when the unlocked one found a forged
// envelope (authentication).
func TestPrivateLockedBudget(t *testing.T) {
	locked, asked, _ := lockedIdentity(t, ed25519Key(t))
	ids, _ := identities(t, X25519, 1)
	strangers := make([]*Recipient, 600)
	for i := range strangers {
		id, err := GenerateIdentity(X25519)
		if err != nil {
			t.Fatal(err)
		}
		strangers[i] = id.Recipient()
	}
	anon := mustSeal(t, &Sealer{Anonymous: true}, []byte("x"), strangers...)
	before := keyAgreements.Load()
	if _, err := OpenBytes(anon, ids[0], locked); !errors.Is(err, ErrAnonymousLimit) || *asked != 0 {
		t.Fatalf("1 200 trials of two identities: %v, asked %d", err, *asked)
	}
	if n := keyAgreements.Load() - before; n != 0 {
		t.Fatalf("%d key agreements before the budget refused the envelope", n)
	}
	forged := mustSeal(t, &Sealer{}, []byte("x"), ids[0].Recipient(), strangers[0])
	sts := stanzasOf(t, forged)
	off := format.PreambleSize
	for _, st := range sts {
		off += 3 + len(st.Body)
	}
	forged[off] ^= 1 // the header MAC
	if _, err := OpenBytes(forged, ids[0], locked); !errors.Is(err, ErrAuthentication) || *asked != 0 {
		t.Fatalf("a forged header MAC: %v, asked %d", err, *asked)
	}
}

// TestPrivateForgedBounded: a private envelope whose ephemeral key no
// agreement accepts costs a reader, and OpenAll, a bounded number of
// allocations whatever its number of stanzas and the reader's identities.
func TestPrivateForgedBounded(t *testing.T) {
	for _, s := range []Suite{X25519, P256} {
		ids, rs := identities(t, s, 4)
		many := make([]*Recipient, 2000)
		for i := range many {
			id, err := GenerateIdentity(s)
			if err != nil {
				t.Fatal(err)
			}
			many[i] = id.Recipient()
		}
		env := mustSeal(t, &Sealer{}, nil, append(many, rs...)...)
		eph := env[format.PreambleSize+3+2 : format.PreambleSize+3+2+len(stanzasOf(t, env)[0].Body)-2]
		if s == X25519 {
			clear(eph) // all-zero agreement
		} else {
			eph[len(eph)-1] ^= 1 // off the curve
		}
		allocs := testing.AllocsPerRun(3, func() {
			if _, err := OpenBytes(env, ids...); !errors.Is(err, ErrAuthentication) {
				t.Fatalf("%s: %v", s, err)
			}
		})
		if allocs > 400 {
			t.Errorf("%s: an open of a forged private envelope of 2 004 stanzas allocates %.0f times", s, allocs)
		}
		allocs = testing.AllocsPerRun(3, func() {
			if _, errs := OpenAll([][]byte{env}, ids...); !errors.Is(errs[0], ErrAuthentication) {
				t.Fatalf("%s: OpenAll: %v", s, errs[0])
			}
		})
		if allocs > 600 {
			t.Errorf("%s: OpenAll of a forged private envelope of 2 004 stanzas allocates %.0f times", s, allocs)
		}
	}
}

// TestPrivateShuffle: where a recipient's stanza stands in a private
// envelope changes from one seal to the next, an ssh-rsa stanza's too.
func TestPrivateShuffle(t *testing.T) {
	_, rr := rsaIdentity(t)
	_, xs := identities(t, X25519, 3)
	seen := map[int]bool{}
	for range 30 {
		env := mustSeal(t, &Sealer{}, nil, append([]*Recipient{rr}, xs...)...)
		for i, st := range stanzasOf(t, env) {
			if st.Type == format.StanzaRSA {
				seen[i] = true
			}
		}
	}
	if len(seen) < 2 {
		t.Fatalf("the ssh-rsa stanza stood at %v in 30 seals", seen)
	}
}

// TestPrivateOpenAllSharedEphemeral: a forged envelope that copies a
// private hybrid envelope's ephemeral stanza under another nonce, in the
// same OpenAll window, changes nothing for the genuine one, before it or
// after it.
func TestPrivateOpenAllSharedEphemeral(t *testing.T) {
	ids, rs := identities(t, MLKEM768X25519, 2)
	env := mustSeal(t, &Sealer{}, []byte("genuine"), rs...)
	other := mustSeal(t, &Sealer{}, []byte("genuine"), rs...) // two halves: a pass
	forged := bytes.Clone(env)
	forged[11] ^= 1 // the nonce: every tag changes
	for _, batch := range [][][]byte{{env, forged, other}, {forged, env, other}} {
		out, errs := OpenAll(batch, ids[0])
		for i, e := range batch {
			switch {
			case !bytes.Equal(e, forged) && (errs[i] != nil || string(out[i]) != "genuine"):
				t.Fatalf("a genuine envelope at %d: %v", i, errs[i])
			case bytes.Equal(e, forged) && !errors.Is(errs[i], ErrNotRecipient):
				t.Fatalf("the forged envelope at %d: %v", i, errs[i])
			}
		}
	}
}
