package kex

import (
	"fmt"
	"testing"

	"github.com/fanseal/fanseal/internal/ecdhx8"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// unmarshalEager is the reference the lazy decoder replaces: decode, then
// parse every key on receipt. It lives only here, for the comparison.
func unmarshalEager(b []byte, g Group) (*Message, error) {
	m, err := Unmarshal(b, g)
	if err != nil {
		return nil, err
	}
	for i := uint32(1); int(i) <= g.Size; i++ {
		if k, ok := m.PublicKey(i); ok {
			if err := g.Suite.checkPublic(k); err != nil {
				return nil, &KeyError{Sender: m.SenderID, Receiver: i, Err: err}
			}
		}
	}
	return m, nil
}

var modes = []struct {
	name      string
	unmarshal func([]byte, Group) (*Message, error)
}{{"eager", unmarshalEager}, {"lazy", Unmarshal}}

// wireRound returns member 1's Round and every peer's encoded message.
func wireRound(b *testing.B, g Group) (*Round, [][]byte) {
	self, err := NewRound(g, 1)
	if err != nil {
		b.Fatal(err)
	}
	wires := make([][]byte, 0, g.Size-1)
	for i := 2; i <= g.Size; i++ {
		r, err := NewRound(g, uint32(i))
		if err != nil {
			b.Fatal(err)
		}
		wires = append(wires, r.Message().Marshal())
	}
	return self, wires
}

// BenchmarkUnmarshal decodes one peer's message of a group of n.
func BenchmarkUnmarshal(b *testing.B) {
	for _, n := range []int{2, 64, 100} {
		g := Group{Suite: Secp256k1, Size: n, SessionID: "bench"}
		_, wires := wireRound(b, g)
		for _, mode := range modes {
			b.Run(fmt.Sprintf("mode=%s/n=%d", mode.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := mode.unmarshal(wires[0], g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRound is one member's whole receive side of a round: decode the
// n−1 peers' messages and derive the n−1 pairwise keys.
func BenchmarkRound(b *testing.B) {
	for _, n := range []int{64, 100} {
		g := Group{Suite: Secp256k1, Size: n, SessionID: "bench"}
		self, wires := wireRound(b, g)
		for _, mode := range modes {
			b.Run(fmt.Sprintf("mode=%s/n=%d", mode.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					for _, w := range wires {
						m, err := mode.unmarshal(w, g)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := self.Channel(m); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// BenchmarkGenerate is one member's send side: n−1 key pairs and the
// message.
func BenchmarkGenerate(b *testing.B) {
	g := Group{Suite: Secp256k1, Size: 100, SessionID: "bench"}
	b.Run("n=100", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := NewRound(g, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMemberRound is one member's whole round: its n−1 key pairs and
// message (NewRound), then the n−1 peers' messages decoded and the n−1
// channels derived. path=ecdh (X25519) and path=single (secp256k1) are
// the one-at-a-time code (keys from crypto/ecdh or ecdhx8's PublicKeyOne,
// Round.Channel per message); path=ifma gathers the key generations and agreements into
// passes of eight (internal/x25519x8, internal/ecdhx8; Round.Channels).
func BenchmarkMemberRound(b *testing.B) {
	for _, suite := range []Suite{X25519, Secp256k1} {
		single, accelerated := "ecdh", x25519x8.Accelerated()
		if suite == Secp256k1 {
			single, accelerated = "single", ecdhx8.Accelerated()
		}
		for _, n := range []int{10, 100} {
			g := Group{Suite: suite, Size: n, SessionID: "bench"}
			_, wires := wireRound(b, g)
			for _, path := range []string{single, "ifma"} {
				b.Run(fmt.Sprintf("suite=%s/path=%s/n=%d", suite, path, n), func(b *testing.B) {
					if path == "ifma" && !accelerated {
						b.Skip("no AVX-512 IFMA")
					}
					savedX, savedK := batchX25519, batchSecp256k1
					defer func() { batchX25519, batchSecp256k1 = savedX, savedK }()
					batchX25519, batchSecp256k1 = path == "ifma", path == "ifma"
					msgs := make([]*Message, len(wires))
					b.ReportAllocs()
					for b.Loop() {
						self, err := NewRound(g, 1)
						if err != nil {
							b.Fatal(err)
						}
						for i, w := range wires {
							if msgs[i], err = Unmarshal(w, g); err != nil {
								b.Fatal(err)
							}
						}
						if path == "ifma" {
							if _, err := self.Channels(msgs); err != nil {
								b.Fatal(err)
							}
							continue
						}
						for _, m := range msgs {
							if _, err := self.Channel(m); err != nil {
								b.Fatal(err)
							}
						}
					}
				})
			}
		}
	}
}
