package kex

import (
	"bytes"
	"crypto/ecdh"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/fanseal/fanseal/internal/ecdhx8"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// withBatching runs f with the batch paths on and off (on only where the
// CPU has them).
func withBatching(t *testing.T, f func(t *testing.T)) {
	savedX, savedK := batchX25519, batchSecp256k1
	defer func() { batchX25519, batchSecp256k1 = savedX, savedK }()
	for _, on := range []bool{false, true} {
		if on && !x25519x8.Accelerated() && !ecdhx8.Accelerated() {
			continue
		}
		batchX25519, batchSecp256k1 = on && x25519x8.Accelerated(), on && ecdhx8.Accelerated()
		t.Run(fmt.Sprintf("batch=%v", on), f)
	}
}

// TestChannelsX25519 checks every pairwise key of rounds whose keys were
// generated in batches, derived in batches, against the other member's
// derivation one at a time, and each batch-generated public key against
// crypto/ecdh.
func TestChannelsX25519(t *testing.T) {
	withBatching(t, func(t *testing.T) {
		for _, n := range []int{2, 3, 10, 19} {
			g := Group{Suite: X25519, Size: n, SessionID: "batch"}
			rounds, received := runRound(t, g)
			for i := 1; i <= n; i++ {
				for j := 1; j <= n; j++ {
					if i == j {
						continue
					}
					priv, err := ecdh.X25519().NewPrivateKey(rounds[i].keys[j].bytes())
					if err != nil {
						t.Fatal(err)
					}
					if pub, _ := rounds[i].Message().PublicKey(uint32(j)); !bytes.Equal(priv.PublicKey().Bytes(), pub) {
						t.Fatalf("n=%d: member %d's key for %d: public key %x, crypto/ecdh says %x", n, i, j, pub, priv.PublicKey().Bytes())
					}
				}
				var msgs []*Message
				for j := 1; j <= n; j++ {
					if j != i {
						msgs = append(msgs, received[i][j])
					}
				}
				chans, err := rounds[i].Channels(msgs)
				if err != nil {
					t.Fatal(err)
				}
				for k, m := range msgs {
					j := m.SenderID
					other, err := rounds[j].Channel(received[j][i])
					if err != nil {
						t.Fatal(err)
					}
					if chans[k].Peer() != j || chans[k].Key() != other.Key() {
						t.Fatalf("n=%d: members %d and %d derive different keys", n, i, j)
					}
				}
			}
		}
	})
}

// TestChannelsSecp256k1 checks every pairwise key of secp256k1 rounds
// whose keys were generated in batches, derived in batches, against the
// other member's derivation one at a time, and each batch-generated
// public key against decred's.
func TestChannelsSecp256k1(t *testing.T) {
	withBatching(t, func(t *testing.T) {
		for _, n := range []int{2, 3, 10, 19} {
			g := Group{Suite: Secp256k1, Size: n, SessionID: "batch"}
			rounds, received := runRound(t, g)
			for i := 1; i <= n; i++ {
				for j := 1; j <= n; j++ {
					if i == j {
						continue
					}
					want := secp256k1.PrivKeyFromBytes(rounds[i].keys[j].bytes()).PubKey().SerializeCompressed()
					if pub, _ := rounds[i].Message().PublicKey(uint32(j)); !bytes.Equal(want, pub) {
						t.Fatalf("n=%d: member %d's key for %d: public key %x, decred says %x", n, i, j, pub, want)
					}
				}
				var msgs []*Message
				for j := 1; j <= n; j++ {
					if j != i {
						msgs = append(msgs, received[i][j])
					}
				}
				chans, err := rounds[i].Channels(msgs)
				if err != nil {
					t.Fatal(err)
				}
				for k, m := range msgs {
					j := m.SenderID
					other, err := rounds[j].Channel(received[j][i])
					if err != nil {
						t.Fatal(err)
					}
					if chans[k].Peer() != j || chans[k].Key() != other.Key() {
						t.Fatalf("n=%d: members %d and %d derive different keys", n, i, j)
					}
				}
			}
		}
	})
}

// badKeys are corrupt keys of each suite, as a member could publish them:
// each is refused at derivation, by Channel and Channels alike.
func badKeys(t *testing.T, s Suite) [][]byte {
	if s == X25519 {
		return [][]byte{make([]byte, 32), make([]byte, 31)} // low order, short
	}
	ge := append([]byte{3}, bytes.Repeat([]byte{0xff}, 32)...) // x ≥ p
	uncompressed := append([]byte{4}, make([]byte, 32)...)     // a 33-byte key with prefix 4
	return [][]byte{append([]byte{2}, offCurveX(t)...), ge, uncompressed, make([]byte, 65)}
}

// TestChannelsErrors mixes good messages with corrupt keys and messages
// Channel refuses: each failure is reported as Channel reports it (the
// same words), at its index, and the other channels are derived.
func TestChannelsErrors(t *testing.T) {
	withBatching(t, func(t *testing.T) {
		for _, suite := range []Suite{X25519, Secp256k1} {
			channelsErrors(t, suite)
		}
	})
}

func channelsErrors(t *testing.T, suite Suite) {
	g := Group{Suite: suite, Size: 12, SessionID: "s"}
	rounds, received := runRound(t, g)
	var msgs []*Message
	for j := 2; j <= g.Size; j++ {
		msgs = append(msgs, received[1][j])
	}
	// Member 3, 5, ... publishes bad key k for member 1, at index 1, 3, ...
	for k, bad := range badKeys(t, suite) {
		m, err := Unmarshal(corrupt(t, rounds[3+2*k], 1, bad), g)
		if err != nil {
			t.Fatal(err)
		}
		msgs[1+2*k] = m
	}
	other := Group{Suite: suite, Size: 12, SessionID: "other"}
	foreign, _ := NewRound(other, 7)
	msgs[9] = foreign.Message()
	msgs = append(msgs, rounds[1].Message()) // from self
	{
		chans, err := rounds[1].Channels(msgs)
		keyErrors := 0
		for k, m := range msgs {
			want, wantErr := rounds[1].Channel(m)
			if (chans[k] == nil) != (wantErr != nil) {
				t.Fatalf("%s, message %d: channel %v, Channel error %v", suite, k, chans[k], wantErr)
			}
			if wantErr == nil {
				if chans[k].Key() != want.Key() {
					t.Fatalf("%s, message %d: keys differ", suite, k)
				}
				continue
			}
			if ke := (*KeyError)(nil); errors.As(wantErr, &ke) {
				keyErrors++
				if ke.Sender != m.SenderID || ke.Receiver != 1 {
					t.Fatalf("%s, message %d: %v", suite, k, wantErr)
				}
			}
			if err == nil || !strings.Contains(err.Error(), wantErr.Error()) {
				t.Fatalf("%s, message %d: joined error %v lacks %v", suite, k, err, wantErr)
			}
		}
		if keyErrors != len(badKeys(t, suite)) {
			t.Fatalf("%s: %d key errors, want %d", suite, keyErrors, len(badKeys(t, suite)))
		}
		for _, target := range []error{ErrSession, ErrSender} {
			if !errors.Is(err, target) {
				t.Errorf("%s: joined error %v is not %v", suite, err, target)
			}
		}
		if chans[0] == nil || chans[2] == nil {
			t.Fatalf("%s: good messages beside bad ones got no channel", suite)
		}
	}
}
