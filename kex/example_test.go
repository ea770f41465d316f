package kex_test

import (
	"fmt"

	"github.com/fanseal/fanseal/kex"
)

// A 3-member round: each member broadcasts one message; member 2 derives
// its channel with member 1 from member 1's message alone.
func Example() {
	g := kex.Group{Suite: kex.X25519, Size: 3, SessionID: "dkg-2026-11-30"}
	var rounds []*kex.Round
	for i := uint32(1); i <= 3; i++ {
		r, err := kex.NewRound(g, i)
		if err != nil {
			panic(err)
		}
		rounds = append(rounds, r)
	}
	// Member 2 receives member 1's broadcast and opens a box from it.
	wire := rounds[0].Message().Marshal()
	m, err := kex.Unmarshal(wire, g)
	if err != nil {
		panic(err)
	}
	toMember2, _ := kex.Unmarshal(rounds[1].Message().Marshal(), g)
	c1, _ := rounds[0].Channel(toMember2)
	box, _ := c1.Seal([]byte("your share: 42"))

	c2, err := rounds[1].Channel(m)
	if err != nil {
		panic(err)
	}
	share, err := c2.Open(box)
	fmt.Println(string(share), err)
	// Output: your share: 42 <nil>
}

// Member 1 of a round derives its channels with every peer at once.
func ExampleRound_Channels() {
	g := kex.Group{Suite: kex.X25519, Size: 10, SessionID: "dkg-2026-11-30"}
	rounds := make([]*kex.Round, g.Size+1)
	for i := 1; i <= g.Size; i++ {
		rounds[i], _ = kex.NewRound(g, uint32(i))
	}
	// Member 1 receives the other members' broadcasts.
	var msgs []*kex.Message
	for i := 2; i <= g.Size; i++ {
		m, err := kex.Unmarshal(rounds[i].Message().Marshal(), g)
		if err != nil {
			panic(err)
		}
		msgs = append(msgs, m)
	}
	channels, err := rounds[1].Channels(msgs)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(channels), channels[0].Peer(), channels[8].Peer())
	// Output: 9 2 10
}
