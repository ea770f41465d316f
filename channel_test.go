package fanseal

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/fanseal/fanseal/internal/format"
)

// TestChannelKeyFromSpec derives channel keys the way docs/FORMAT.md
// writes them, with crypto/ecdh and crypto/hkdf only, and opens real
// channel stanzas with them: the AEAD id is part of the key's info.
func TestChannelKeyFromSpec(t *testing.T) {
	for _, tc := range ecdhSuites {
		for _, aead := range []AEAD{AES256GCM, ChaCha20Poly1305} {
			t.Run(fmt.Sprintf("suite=%s/aead=%s", tc.suite, aead), func(t *testing.T) {
				sender, _, ids := newKeyrings(t, tc.suite)
				sender.SetEpoch(7)
				env := mustSeal(t, &Sealer{Strategy: Channel, Keyring: sender, AEAD: aead}, []byte("x"), ids[0].Recipient())
				st := stanzasOf(t, env)[0]
				if st.Type != format.StanzaChannel {
					t.Fatalf("stanza type %d", st.Type)
				}
				b := st.Body
				salt, counter, ct := b[22:38], b[38:46], b[46:]
				sk, _ := tc.curve.NewPrivateKey(ids[0].priv)
				pk, _ := tc.curve.NewPublicKey(sender.self.r.raw)
				dh, err := sk.ECDH(pk)
				if err != nil {
					t.Fatal(err)
				}
				info := []byte("fanseal/v1 channel")
				info = binary.BigEndian.AppendUint16(info, uint16(tc.suite))
				info = binary.BigEndian.AppendUint16(info, uint16(aead))
				info = binary.BigEndian.AppendUint32(info, 7)
				info = append(info, sender.self.r.raw...)
				info = append(info, ids[0].r.raw...)
				key, _ := hkdf.Key(sha256.New, dh, salt, string(info), 32)
				a := specAEAD(t, aead, key)
				nonce := append(make([]byte, 4), counter...)
				if _, err := a.Open(nil, nonce, ct, env[:format.PreambleSize]); err != nil {
					t.Fatalf("the channel stanza does not open under the key FORMAT.md defines: %v", err)
				}
			})
		}
	}
}

// TestChannelEpochNoWrap: a keyring at epoch 0 accepts only epoch 0, not
// 2^32-1 (the epoch "before" 0 if it wrapped around).
func TestChannelEpochNoWrap(t *testing.T) {
	sender, recipient, ids := newKeyrings(t, X25519)
	sealer := &Sealer{Strategy: Channel, Keyring: sender}
	sender.SetEpoch(math.MaxUint32)
	env := mustSeal(t, sealer, []byte("x"), ids[0].Recipient())
	if _, err := (&Opener{Keyring: recipient}).OpenBytes(env, ids[0]); !errors.Is(err, ErrNotRecipient) {
		t.Fatalf("epoch 2^32-1 at a keyring at epoch 0: %v", err)
	}
	recipient.SetEpoch(1)
	sender.SetEpoch(0)
	env = mustSeal(t, sealer, []byte("x"), ids[0].Recipient())
	if _, err := (&Opener{Keyring: recipient}).OpenBytes(env, ids[0]); err != nil {
		t.Fatalf("epoch 0 at a keyring at epoch 1: %v", err)
	}
}

// forgedChannel is a channel stanza "from" sender to r with a random salt
// and ciphertext: it derives a fresh channel key at the recipient, then
// fails to open.
func forgedChannel(sender, r *Recipient, epoch uint32) part {
	b := format.AppendChannelHeader(nil, &format.ChannelStanza{
		KEM: uint16(r.suite), KeyID: r.id[:], SenderID: sender.id[:], Epoch: epoch, Salt: randomBytes(format.SaltSize),
	})
	return raw(format.StanzaChannel, append(b, randomBytes(format.WrappedSize)...))
}

// TestForgedChannelKeepsCache: channel stanzas that do not authenticate
// never displace good cached channel keys.
func TestForgedChannelKeepsCache(t *testing.T) {
	sender, _, ids := newKeyrings(t, X25519)
	recipient, _ := NewKeyring(ids[0], 1) // room for one channel key
	recipient.AddPeer(sender.self.r)
	sealer, opener := &Sealer{Strategy: Channel, Keyring: sender}, &Opener{Keyring: recipient}
	good := func() {
		t.Helper()
		env := mustSeal(t, sealer, []byte("x"), ids[0].Recipient())
		if _, err := opener.OpenBytes(env, ids[0]); err != nil {
			t.Fatal(err)
		}
	}
	good()
	if n := recipient.agreements.Load(); n != 1 {
		t.Fatalf("%d key agreements for the first envelope", n)
	}
	for range 3 {
		forged := build(t, false, forgedChannel(sender.self.r, ids[0].r, 0), to(ids[1].r))
		if _, err := opener.OpenBytes(forged, ids[0]); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("forged channel stanza: %v", err)
		}
	}
	good()
	if n := recipient.agreements.Load(); n != 1+3 {
		t.Fatalf("%d key agreements: forged stanzas evicted the good channel key", n)
	}
	// A stanza that opens in an envelope whose MAC fails is not cached
	// either: a new sender salt, and a flipped MAC byte.
	cached := recipient.channels.Keys()
	sender.SetEpoch(0) // a new salt
	env := mustSeal(t, sealer, []byte("x"), ids[0].Recipient())
	h := readHeader(t, env)
	env[len(h.Raw)] ^= 1
	if _, err := opener.OpenBytes(env, ids[0]); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("bad MAC: %v", err)
	}
	if now := recipient.channels.Keys(); len(now) != 1 || now[0] != cached[0] {
		t.Fatal("a channel key from an envelope that failed its MAC was cached in place of the good one")
	}
}

// TestKeyringPeersPerKeyID: at most four peers may share an identifier.
func TestKeyringPeersPerKeyID(t *testing.T) {
	_, rs := identities(t, X25519, 6)
	me, _ := GenerateIdentity(X25519)
	kr, _ := NewKeyring(me, 0)
	peers := make([]*Recipient, 5)
	for i := range peers {
		p := *rs[i]
		p.id = rs[0].id
		peers[i] = &p
	}
	if err := kr.AddPeer(peers[:4]...); err != nil {
		t.Fatal(err)
	}
	if err := kr.AddPeer(peers[4]); !errors.Is(err, ErrDuplicateRecipient) {
		t.Fatalf("a fifth peer with one identifier: %v", err)
	}
	if err := kr.AddPeer(peers[0], rs[5]); err != nil {
		t.Fatalf("re-adding a peer: %v", err)
	}
}

// TestChannelLowOrderPeer: a channel stanza "from" a keyring peer whose
// key gives no channel key (a low-order X25519 point) fails as a stanza
// that does not open (rule 14), with a documented Open error, and does not
// stop the reader from trying the other peers with that identifier.
func TestChannelLowOrderPeer(t *testing.T) {
	sender, _, ids := newKeyrings(t, X25519)
	recipient, _ := NewKeyring(ids[0], 0)
	low := lowOrderRecipient(t)
	recipient.AddPeer(low)
	env := build(t, false, forgedChannel(low, ids[0].r, 0))
	if _, err := (&Opener{Keyring: recipient}).OpenBytes(env); !errors.Is(err, ErrAuthentication) || !isDocumented(err) || errors.Is(err, ErrInvalidKey) {
		t.Errorf("channel stanza from a low-order peer: %v, want %v", err, ErrAuthentication)
	}
	// The real sender shares the low-order peer's identifier (colliding
	// on purpose): its stanza still opens.
	collider := *sender.self.r
	collider.id = low.id
	sender.self.r = &collider
	recipient.AddPeer(&collider)
	env = mustSeal(t, &Sealer{Strategy: Channel, Keyring: sender}, []byte("x"), ids[0].Recipient())
	if _, err := (&Opener{Keyring: recipient}).OpenBytes(env); err != nil {
		t.Errorf("a peer listed after a low-order peer with its identifier: %v", err)
	}
}

// TestRotationsForgetUnusableKeys: a Keyring keeps, after any number of
// rotations, only the channel keys it can still use: its own epoch's to
// seal, its epoch's and the one before to open. Without that, every
// rotation would leave a key per peer and direction in the cache.
func TestRotationsForgetUnusableKeys(t *testing.T) {
	sender, recipient, ids := newKeyrings(t, X25519)
	sealer := &Sealer{Strategy: Channel, Keyring: sender}
	opener := &Opener{Keyring: recipient}
	r0 := ids[0].Recipient()
	for e := uint32(1); e <= 20; e++ {
		recipient.SetEpoch(e) // receivers first
		sender.SetEpoch(e)
		env := mustSeal(t, sealer, []byte("x"), r0)
		if _, err := opener.OpenBytes(env); err != nil {
			t.Fatalf("epoch %d: %v", e, err)
		}
		if n := sender.channels.Len(); n != 1 {
			t.Fatalf("epoch %d: the sender caches %d channel keys, want 1 (this epoch's)", e, n)
		}
		if n, want := recipient.channels.Len(), min(2, int(e)); n != want {
			t.Fatalf("epoch %d: the recipient caches %d channel keys, want %d (this epoch's and the one before)", e, n, want)
		}
	}
	// One envelope of epoch 20 in flight when the recipient moves to 21:
	// its key stays, and goes at 22.
	env := mustSeal(t, sealer, []byte("x"), r0)
	recipient.SetEpoch(21)
	if _, err := opener.OpenBytes(env); err != nil || recipient.channels.Len() != 1 {
		t.Fatalf("previous epoch: %v, %d keys", err, recipient.channels.Len())
	}
	recipient.SetEpoch(22)
	if n := recipient.channels.Len(); n != 0 {
		t.Fatalf("two epochs on, %d keys left", n)
	}
}
