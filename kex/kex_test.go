package kex

import (
	"bytes"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/big"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"go.uber.org/goleak"
	"golang.org/x/crypto/chacha20poly1305"
	"google.golang.org/protobuf/encoding/protowire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// runRound plays a whole round for g: every member generates its message,
// every other member unmarshals it from the wire.
func runRound(t testing.TB, g Group) ([]*Round, [][]*Message) {
	t.Helper()
	rounds := make([]*Round, g.Size+1)
	for i := 1; i <= g.Size; i++ {
		r, err := NewRound(g, uint32(i))
		if err != nil {
			t.Fatal(err)
		}
		rounds[i] = r
	}
	// received[i][j] is member j's message as member i decoded it.
	received := make([][]*Message, g.Size+1)
	for i := 1; i <= g.Size; i++ {
		received[i] = make([]*Message, g.Size+1)
		for j := 1; j <= g.Size; j++ {
			if i == j {
				continue
			}
			m, err := Unmarshal(rounds[j].Message().Marshal(), g)
			if err != nil {
				t.Fatalf("member %d decoding member %d: %v", i, j, err)
			}
			received[i][j] = m
		}
	}
	return rounds, received
}

func TestRound(t *testing.T) {
	for _, suite := range []Suite{Secp256k1, X25519} {
		t.Run("suite="+suite.String(), func(t *testing.T) {
			g := Group{Suite: suite, Size: 5, SessionID: "dkg-7"}
			rounds, received := runRound(t, g)
			for i := 1; i <= g.Size; i++ {
				for j := i + 1; j <= g.Size; j++ {
					ci, err := rounds[i].Channel(received[i][j])
					if err != nil {
						t.Fatal(err)
					}
					cj, err := rounds[j].Channel(received[j][i])
					if err != nil {
						t.Fatal(err)
					}
					if ci.Key() != cj.Key() || ci.Peer() != uint32(j) || cj.Peer() != uint32(i) {
						t.Fatalf("members %d and %d derive different keys", i, j)
					}
					box, _ := ci.Seal([]byte("share for you"))
					if pt, err := cj.Open(box); err != nil || string(pt) != "share for you" {
						t.Fatalf("Open = %q, %v", pt, err)
					}
				}
			}
			// Different pairs have different keys.
			a, _ := rounds[1].Channel(received[1][2])
			b, _ := rounds[1].Channel(received[1][3])
			if a.Key() == b.Key() {
				t.Fatal("two pairs share a key")
			}
			if _, err := rounds[1].Channel(rounds[1].Message()); !errors.Is(err, ErrSender) {
				t.Fatalf("channel with self: %v", err)
			}
		})
	}
}

// TestSecp256k1KeysAgainstDecred compares the key pairs and agreements of
// the one-at-a-time path (generate, parsePrivate, agree: internal/ecdhx8's
// PublicKeyOne and ECDHOne) with decred's variable-time reference, on
// random scalars and the edges 1, 2, n-2 and n-1, and refuses 0 and n.
func TestSecp256k1KeysAgainstDecred(t *testing.T) {
	n := secp256k1.Params().N
	edge := func(d int64) []byte {
		var b [32]byte
		if d > 0 {
			return new(big.Int).SetInt64(d).FillBytes(b[:])
		}
		return new(big.Int).Add(n, big.NewInt(d)).FillBytes(b[:])
	}
	scalars := [][]byte{edge(1), edge(2), edge(-2), edge(-1)}
	for range 50 {
		k, err := Secp256k1.generate()
		if err != nil {
			t.Fatal(err)
		}
		scalars = append(scalars, k.bytes())
	}
	for _, sb := range scalars {
		k, err := Secp256k1.parsePrivate(sb)
		if err != nil {
			t.Fatalf("%x: %v", sb, err)
		}
		ref := secp256k1.PrivKeyFromBytes(sb)
		if want := ref.PubKey().SerializeCompressed(); !bytes.Equal(k.public(), want) {
			t.Fatalf("%x: public key %x, decred says %x", sb, k.public(), want)
		}
		peer, _ := secp256k1.GeneratePrivateKey()
		got, err := k.agree(peer.PubKey().SerializeCompressed())
		if err != nil {
			t.Fatal(err)
		}
		if want := secp256k1.GenerateSharedSecret(ref, peer.PubKey()); !bytes.Equal(got, want) {
			t.Fatalf("%x: shared secret %x, decred says %x", sb, got, want)
		}
	}
	for _, bad := range [][]byte{make([]byte, 32), n.FillBytes(make([]byte, 32)), edge(1)[1:]} {
		if _, err := Secp256k1.parsePrivate(bad); !errors.Is(err, ErrReveal) {
			t.Errorf("parsePrivate(%x) = %v, want ErrReveal", bad, err)
		}
	}
}

// TestSecp256k1PairwiseKey checks the historical key derivation directly
// against the curve library, including a shared X with a leading zero
// byte, which must be hashed without it.
func TestSecp256k1PairwiseKey(t *testing.T) {
	g := Group{Suite: Secp256k1, Size: 2}
	for tries := 0; ; tries++ {
		if tries > 5000 {
			t.Fatal("no shared X with a leading zero byte in 5000 tries")
		}
		a, _ := secp256k1.GeneratePrivateKey()
		b, _ := secp256k1.GeneratePrivateKey()
		x := secp256k1.GenerateSharedSecret(a, b.PubKey())
		if x[0] != 0 && tries > 0 {
			continue
		}
		c, err := derive(g, newSecpKey((*[32]byte)(a.Serialize())), b.PubKey().SerializeCompressed(), 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		want := sha256.Sum256(bytes.TrimLeft(x, "\x00"))
		if c.Key() != want {
			t.Fatalf("pairwise key is not SHA-256 of the trimmed shared X (leading zero: %v)", x[0] == 0)
		}
		if x[0] == 0 {
			if c.Key() == sha256.Sum256(x) {
				t.Fatal("leading zero byte was hashed")
			}
			return
		}
	}
}

// corrupt replaces the key member from published for member to with bad,
// re-encoding the message.
func corrupt(t *testing.T, r *Round, to uint32, bad []byte) []byte {
	keys := make([][]byte, r.group.Size+1)
	for i := 1; i <= r.group.Size; i++ {
		if k, ok := r.Message().PublicKey(uint32(i)); ok {
			keys[i] = k
		}
	}
	keys[to] = bad
	return newMessage(r.self, r.group.SessionID, keys).Marshal()
}

// offCurveX returns 32 bytes that are the X coordinate of no point.
func offCurveX(t *testing.T) []byte {
	for i := byte(1); ; i++ {
		x := make([]byte, 32)
		x[31] = i
		if _, err := secp256k1.ParsePubKey(append([]byte{2}, x...)); err != nil {
			return x
		}
	}
}

// TestCorruptKeyIsLazy corrupts the key member 1 sends to member 2: every
// member still unmarshals member 1's message, only member 2 fails, at
// derivation, with a KeyError naming sender 1 and receiver 2.
func TestCorruptKeyIsLazy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		suite Suite
		bad   func(t *testing.T) []byte
	}{
		{"secp256k1/off-curve", Secp256k1, func(t *testing.T) []byte { return append([]byte{2}, offCurveX(t)...) }},
		{"secp256k1/bad-prefix", Secp256k1, func(*testing.T) []byte { return append([]byte{5}, bytes.Repeat([]byte{1}, 32)...) }},
		{"secp256k1/wrong-length", Secp256k1, func(*testing.T) []byte { return bytes.Repeat([]byte{2}, 32) }},
		{"x25519/wrong-length", X25519, func(*testing.T) []byte { return bytes.Repeat([]byte{9}, 33) }},
		{"x25519/low-order", X25519, func(*testing.T) []byte { return make([]byte, 32) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Group{Suite: tc.suite, Size: 4, SessionID: "s"}
			rounds, _ := runRound(t, g)
			wire := corrupt(t, rounds[1], 2, tc.bad(t))
			for member := uint32(2); member <= 4; member++ {
				m, err := Unmarshal(wire, g)
				if err != nil {
					t.Fatalf("member %d cannot unmarshal: %v", member, err)
				}
				c, err := rounds[member].Channel(m)
				if member != 2 {
					if err != nil {
						t.Fatalf("member %d affected: %v", member, err)
					}
					continue
				}
				var ke *KeyError
				if !errors.As(err, &ke) || ke.Sender != 1 || ke.Receiver != 2 || c != nil {
					t.Fatalf("member 2: error %v, want a KeyError from 1 to 2", err)
				}
			}
		})
	}
}

func TestUnmarshalErrors(t *testing.T) {
	g := Group{Suite: Secp256k1, Size: 4, SessionID: "round-1"}
	rounds, _ := runRound(t, g)
	good := rounds[2].Message().Marshal()
	key := bytes.Repeat([]byte{2}, 33)
	entry := func(member uint64, k []byte) []byte {
		e := protowire.AppendTag(nil, 1, protowire.VarintType)
		e = protowire.AppendVarint(e, member)
		e = protowire.AppendTag(e, 2, protowire.BytesType)
		e = protowire.AppendBytes(e, k)
		b := protowire.AppendTag(nil, 2, protowire.BytesType)
		return protowire.AppendBytes(b, e)
	}
	msg := func(sender uint64, session string, members ...uint64) []byte {
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, sender)
		for _, m := range members {
			b = append(b, entry(m, key)...)
		}
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		return protowire.AppendString(b, session)
	}
	if _, err := Unmarshal(msg(1, "round-1", 2, 3, 4), g); err != nil {
		t.Fatalf("hand-built message: %v", err)
	}
	withUnknownField := append(msg(1, "round-1", 4, 3, 2), protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 7)...)
	if _, err := Unmarshal(withUnknownField, g); err != nil {
		t.Fatalf("unknown field and reordered keys: %v", err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"missing", msg(1, "round-1", 2, 3), ErrMissingKey},
		{"extra", msg(1, "round-1", 2, 3, 4, 5), ErrUnknownMember},
		{"zero-index", msg(1, "round-1", 0, 2, 3, 4), ErrUnknownMember},
		{"duplicate", msg(1, "round-1", 2, 3, 3, 4), ErrDuplicateKey},
		{"self-key", msg(1, "round-1", 1, 2, 3, 4), ErrUnknownMember},
		{"session", msg(1, "round-2", 2, 3, 4), ErrSession},
		{"sender-zero", msg(0, "round-1", 2, 3, 4), ErrSender},
		{"sender-outside", msg(5, "round-1", 1, 2, 3, 4), ErrSender},
		{"no-sender", good[2:], ErrSender},
		{"oversized", append(bytes.Clone(good), make([]byte, MaxMessageSize(4))...), ErrTooLarge},
		{"huge-key", append(msg(1, "round-1", 2, 3), entry(4, make([]byte, 200))...), ErrTooLarge},
		{"empty-key", append(msg(1, "round-1", 2, 3), entry(4, nil)...), ErrMissingKey},
		{"huge-declared-length", append(msg(1, "round-1", 2, 3, 4), 0x12, 0xff, 0xff, 0xff, 0x0f), ErrMalformed},
		{"wrong-wire-type", append(msg(1, "round-1", 2, 3, 4), 0x08|0x02, 0), ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Unmarshal(tc.b, g); !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
		})
	}
	for n := range len(good) {
		if _, err := Unmarshal(good[:n], g); err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", n, len(good))
		}
	}
}

func TestAccusation(t *testing.T) {
	for _, suite := range []Suite{Secp256k1, X25519} {
		g := Group{Suite: suite, Size: 3, SessionID: "sign-9"}
		rounds, received := runRound(t, g)
		// Member 3 sent member 1 a box it claims is bad; member 1 reveals
		// its key for member 3 so anyone can open the box.
		c31, _ := rounds[3].Channel(received[3][1])
		box, _ := c31.Seal([]byte("disputed share"))
		revealed, _ := rounds[1].Reveal(3)
		judge, err := CheckAccusation(g, received[2][1], received[2][3], revealed)
		if err != nil {
			t.Fatalf("%s: %v", suite, err)
		}
		if pt, err := judge.Open(box); err != nil || string(pt) != "disputed share" {
			t.Fatalf("%s: judge cannot open the box: %v", suite, err)
		}
		wrong, _ := rounds[1].Reveal(2)
		if _, err := CheckAccusation(g, received[2][1], received[2][3], wrong); !errors.Is(err, ErrReveal) {
			t.Fatalf("%s: wrong revealed key: %v", suite, err)
		}
		if _, err := CheckAccusation(g, received[2][1], received[2][3], []byte("junk")); !errors.Is(err, ErrReveal) {
			t.Fatalf("%s: junk revealed key: %v", suite, err)
		}
		if _, err := rounds[1].Reveal(1); err == nil {
			t.Fatal("revealed a key for self")
		}
	}
	// The accused published a corrupt key for the accuser: the check
	// reports it as a KeyError, not a crash.
	g := Group{Suite: Secp256k1, Size: 3, SessionID: "sign-9"}
	rounds, received := runRound(t, g)
	bad, err := Unmarshal(corrupt(t, rounds[3], 1, append([]byte{2}, offCurveX(t)...)), g)
	if err != nil {
		t.Fatal(err)
	}
	revealed, _ := rounds[1].Reveal(3)
	var ke *KeyError
	if _, err := CheckAccusation(g, received[2][1], bad, revealed); !errors.As(err, &ke) || ke.Sender != 3 || ke.Receiver != 1 {
		t.Fatalf("corrupt stored key: %v", err)
	}
}

func TestChannelOpenErrors(t *testing.T) {
	for _, suite := range []Suite{Secp256k1, X25519} {
		c, _ := newChannel(suite, [32]byte{1}, 1, 2)
		peer, _ := newChannel(suite, [32]byte{1}, 2, 1)
		box, _ := c.Seal([]byte("x"))
		if pt, err := peer.Open(box); err != nil || string(pt) != "x" {
			t.Fatalf("%s: Open = %q, %v", suite, pt, err)
		}
		for _, bad := range [][]byte{nil, box[:10], box[:len(box)-1], append(bytes.Clone(box[:len(box)-1]), box[len(box)-1]^1)} {
			if _, err := peer.Open(bad); !errors.Is(err, ErrOpen) {
				t.Errorf("%s: Open(%d bytes) error = %v", suite, len(bad), err)
			}
		}
		other, _ := newChannel(suite, [32]byte{2}, 2, 1)
		if _, err := other.Open(box); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: wrong key: %v", suite, err)
		}
	}
}

func TestGroupChecks(t *testing.T) {
	for _, g := range []Group{{Suite: X25519, Size: 1}, {Suite: X25519, Size: MaxMembers + 1}, {Suite: 9, Size: 3}, {Suite: X25519, Size: 3, SessionID: string(make([]byte, 300))}} {
		if _, err := NewRound(g, 1); err == nil {
			t.Errorf("NewRound accepted %+v", g)
		}
	}
	if _, err := NewRound(Group{Suite: X25519, Size: 3}, 4); !errors.Is(err, ErrSender) {
		t.Errorf("member 4 of 3: %v", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	g := Group{Suite: Secp256k1, Size: 3, SessionID: "fuzz"}
	r, err := NewRound(g, 2)
	if err != nil {
		f.Fatal(err)
	}
	self, _ := NewRound(g, 1)
	f.Add(r.Message().Marshal())
	f.Add([]byte{0x08, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Unmarshal(b, g)
		if err != nil {
			return
		}
		for i := uint32(1); i <= 3; i++ {
			if _, ok := m.PublicKey(i); ok == (i == m.SenderID) {
				t.Fatalf("accepted message with key presence wrong for member %d", i)
			}
		}
		if m.SenderID != 1 {
			self.Channel(m) // may fail with a KeyError, must not panic
		}
	})
}

// TestReflectedBox: a member's own box, sent back to it as if its peer
// had sent it, does not open. In the X25519 suite each direction has its
// own key, HKDF-SHA256-Expand(pairwise key, "fanseal/kex/v1 x25519 box" ||
// I2OSP(sender, 4) || I2OSP(receiver, 4), 32), checked here from that
// definition; in the Secp256k1 suite, whose wire format has one key for
// both directions, a Channel refuses a box whose nonce carries its own
// member's tag (TestChannelNonceTag checks the tag). Either way a Channel
// derived again refuses it too.
func TestReflectedBox(t *testing.T) {
	for _, suite := range []Suite{Secp256k1, X25519} {
		t.Run("suite="+suite.String(), func(t *testing.T) {
			g := Group{Suite: suite, Size: 3, SessionID: "reflect"}
			rounds, received := runRound(t, g)
			c12, err := rounds[1].Channel(received[1][2])
			if err != nil {
				t.Fatal(err)
			}
			c21, err := rounds[2].Channel(received[2][1])
			if err != nil {
				t.Fatal(err)
			}
			box, _ := c12.Seal([]byte("for member 2"))
			if pt, err := c21.Open(box); err != nil || string(pt) != "for member 2" {
				t.Fatalf("the peer's Open = %q, %v", pt, err)
			}
			if pt, err := c12.Open(box); !errors.Is(err, ErrOpen) || suite == Secp256k1 && !errors.Is(err, ErrReflected) {
				t.Fatalf("member 1 opened its own box sent back to it: %q, %v", pt, err)
			}
			back, _ := c21.Seal([]byte("for member 1"))
			if pt, err := c12.Open(back); err != nil || string(pt) != "for member 1" {
				t.Fatalf("the reply: %q, %v", pt, err)
			}
			// A channel derived again refuses the reflection too: the key,
			// or the nonce's tag, says the direction.
			again, _ := rounds[1].Channel(received[1][2])
			if _, err := again.Open(box); !errors.Is(err, ErrOpen) || suite == Secp256k1 && !errors.Is(err, ErrReflected) {
				t.Fatalf("a channel derived again opened member 1's own box: %v", err)
			}
			if suite != X25519 {
				return
			}
			pairwise := c12.Key()
			info := binary.BigEndian.AppendUint32([]byte("fanseal/kex/v1 x25519 box"), 1)
			info = binary.BigEndian.AppendUint32(info, 2)
			k, err := hkdf.Expand(sha256.New, pairwise[:], string(info), 32)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := chacha20poly1305.New(k)
			if pt, err := a.Open(nil, box[:a.NonceSize()], box[a.NonceSize():], nil); err != nil || string(pt) != "for member 2" {
				t.Fatalf("the box of 1 to 2 does not open under the key the definition gives: %v", err)
			}
		})
	}
}
