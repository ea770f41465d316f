package kex

import (
	"bytes"
	"crypto/ecdh"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/internal/x25519x8"
)

// withBatching runs f with the X25519 batch path on and off (on only
// where the CPU has it).
func withBatching(t *testing.T, f func(t *testing.T)) {
	saved := batchX25519
	defer func() { batchX25519 = saved }()
	for _, on := range []bool{false, true} {
		if on && !x25519x8.Accelerated() {
			continue
		}
		batchX25519 = on
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

// TestChannelsErrors mixes good messages with corrupt keys and messages
// Channel refuses: each failure is reported as Channel reports it, at its
// index, and the other channels are derived.
func TestChannelsErrors(t *testing.T) {
	withBatching(t, func(t *testing.T) {
		g := Group{Suite: X25519, Size: 12, SessionID: "s"}
		rounds, received := runRound(t, g)
		var msgs []*Message
		for j := 2; j <= g.Size; j++ {
			msgs = append(msgs, received[1][j])
		}
		lowOrder, _ := Unmarshal(corrupt(t, rounds[3], 1, make([]byte, 32)), g)
		short, _ := Unmarshal(corrupt(t, rounds[5], 1, make([]byte, 31)), g)
		other := Group{Suite: X25519, Size: 12, SessionID: "other"}
		foreign, _ := NewRound(other, 7)
		msgs[1], msgs[3], msgs[5] = lowOrder, short, foreign.Message()
		msgs = append(msgs, rounds[1].Message()) // from self
		chans, err := rounds[1].Channels(msgs)
		for k, m := range msgs {
			want, wantErr := rounds[1].Channel(m)
			if (chans[k] == nil) != (wantErr != nil) {
				t.Fatalf("message %d: channel %v, Channel error %v", k, chans[k], wantErr)
			}
			if wantErr == nil {
				if chans[k].Key() != want.Key() {
					t.Fatalf("message %d: keys differ", k)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), wantErr.Error()) {
				t.Fatalf("message %d: joined error %v lacks %v", k, err, wantErr)
			}
		}
		for _, target := range []error{ErrSession, ErrSender} {
			if !errors.Is(err, target) {
				t.Errorf("joined error %v is not %v", err, target)
			}
		}
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Receiver != 1 || (ke.Sender != 3 && ke.Sender != 5) {
			t.Fatalf("joined error %v has no KeyError for member 1 from 3 or 5", err)
		}
		if chans[0] == nil || chans[2] == nil {
			t.Fatal("good messages beside bad ones got no channel")
		}
	})
}
