package fanseal_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/fanseal/fanseal"
)

// Seal a payload for a group and open it as one member.
func Example() {
	var team []*fanseal.Identity
	var recipients []*fanseal.Recipient
	for range 5 {
		id, err := fanseal.GenerateIdentity(fanseal.X25519)
		if err != nil {
			log.Fatal(err)
		}
		team = append(team, id)
		recipients = append(recipients, id.Recipient())
	}

	envelope, err := fanseal.SealBytes([]byte("transfer view #42"), recipients...)
	if err != nil {
		log.Fatal(err)
	}

	payload, err := fanseal.OpenBytes(envelope, team[3])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", payload)
	// Output: transfer view #42
}

// Stream a large payload through Seal and Open in bounded memory.
func ExampleSeal() {
	alice, _ := fanseal.GenerateIdentity(fanseal.P256)
	bob, _ := fanseal.GenerateIdentity(fanseal.P256)

	var envelope bytes.Buffer
	w, err := fanseal.Seal(&envelope, alice.Recipient(), bob.Recipient())
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.Copy(w, strings.NewReader(strings.Repeat("ledger line\n", 100000))); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil { // seals the last chunk
		log.Fatal(err)
	}

	r, err := fanseal.Open(&envelope, bob)
	if err != nil {
		log.Fatal(err)
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "bytes opened")
	// Output: 1200000 bytes opened
}

// Choose the strategy and cipher of a Sealer.
func ExampleSealer() {
	id, _ := fanseal.GenerateIdentity(fanseal.MLKEM768X25519)
	s := &fanseal.Sealer{
		Strategy:    fanseal.Parallel,
		Parallelism: 4,
		AEAD:        fanseal.ChaCha20Poly1305,
	}
	envelope, err := s.SealBytes([]byte("post-quantum hello"), id.Recipient())
	if err != nil {
		log.Fatal(err)
	}
	payload, err := fanseal.OpenBytes(envelope, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", payload)
	// Output: post-quantum hello
}

// A service that seals to the recipients each request names parses them
// through a SessionCache: a post-quantum recipient that comes back is
// parsed once, and its expanded ML-KEM-768 key serves every later seal.
func ExampleSessionCache_ParseRecipient() {
	team := make([]string, 3)
	for i := range team {
		id, _ := fanseal.GenerateIdentity(fanseal.MLKEM768X25519)
		team[i] = id.Recipient().String()
	}
	cache := fanseal.NewSessionCache(0, 0)
	sealer := &fanseal.Sealer{Cache: cache}
	for range 2 { // two requests, each naming the team
		recipients := make([]*fanseal.Recipient, len(team))
		for i, text := range team {
			r, err := cache.ParseRecipient(text)
			if err != nil {
				log.Fatal(err)
			}
			recipients[i] = r
		}
		if _, err := sealer.SealBytes([]byte("ledger entry"), recipients...); err != nil {
			log.Fatal(err)
		}
	}
	first, _ := cache.ParseRecipient(team[0])
	again, _ := cache.ParseRecipient(team[0])
	fmt.Println(first == again)
	// Output: true
}

// Read identities from an identity file, as written by fanseal keygen.
func ExampleParseIdentities() {
	id, _ := fanseal.GenerateIdentity(fanseal.X25519)
	file := "# created: 2026-11-30T09:00:00Z\n# public key: " + id.Recipient().String() + "\n" + id.String() + "\n"

	ids, err := fanseal.ParseIdentities(strings.NewReader(file))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println(len(ids), ids[0].Suite())
	// Output: 1 x25519
}

// An Opener bounds the trial decryptions an anonymous envelope may cost.
func ExampleOpener_maxAnonymousTrials() {
	var ids []*fanseal.Identity
	var rs []*fanseal.Recipient
	for range 3 {
		id, err := fanseal.GenerateIdentity(fanseal.X25519)
		if err != nil {
			log.Fatal(err)
		}
		ids, rs = append(ids, id), append(rs, id.Recipient())
	}
	env, err := (&fanseal.Sealer{Anonymous: true}).SealBytes([]byte("hello"), rs...)
	if err != nil {
		log.Fatal(err)
	}
	_, err = (&fanseal.Opener{MaxAnonymousTrials: 2}).OpenBytes(env, ids[2])
	fmt.Println(errors.Is(err, fanseal.ErrUnsupported))
	payload, err := (&fanseal.Opener{MaxAnonymousTrials: 3}).OpenBytes(env, ids[2])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(payload))
	// Output:
	// true
	// hello
}

// Warm a Keyring's channel keys before the first seal: one key agreement
// per peer, eight to a pass on a CPU with AVX-512 IFMA, done ahead of the
// traffic; every channel seal afterwards costs one AEAD seal per peer.
func ExampleKeyring_Warm() {
	me, _ := fanseal.GenerateIdentity(fanseal.X25519)
	kr, _ := fanseal.NewKeyring(me, 0)
	var ids []*fanseal.Identity
	var peers []*fanseal.Recipient
	for range 20 {
		id, _ := fanseal.GenerateIdentity(fanseal.X25519)
		ids, peers = append(ids, id), append(peers, id.Recipient())
	}
	kr.AddPeer(peers...)
	if err := kr.Warm(fanseal.AES256GCM); err != nil {
		log.Fatal(err)
	}
	s := &fanseal.Sealer{Strategy: fanseal.Channel, Keyring: kr}
	envelope, err := s.SealBytes([]byte("view"), peers...)
	if err != nil {
		log.Fatal(err)
	}
	// A peer opens with a keyring that knows the sender.
	ring, _ := fanseal.NewKeyring(ids[7], 0)
	ring.AddPeer(me.Recipient())
	payload, err := (&fanseal.Opener{Keyring: ring}).OpenBytes(envelope, ids[7])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", payload)
	// Output: view
}

// An auditor reads a day's envelopes at once: OpenAll computes their key
// agreements eight to a pass, and a bad envelope fails only itself.
func ExampleOpenAll() {
	auditor, err := fanseal.GenerateIdentity(fanseal.P256)
	if err != nil {
		log.Fatal(err)
	}
	var envelopes [][]byte
	for i := range 20 {
		env, err := fanseal.SealBytes([]byte(fmt.Sprintf("entry %d", i)), auditor.Recipient())
		if err != nil {
			log.Fatal(err)
		}
		envelopes = append(envelopes, env)
	}
	envelopes[7][len(envelopes[7])-1] ^= 1 // tampered in storage

	payloads, errs := fanseal.OpenAll(envelopes, auditor)
	fmt.Printf("%s, %s\n", payloads[0], payloads[19])
	for i, err := range errs {
		if err != nil {
			fmt.Printf("envelope %d: authentication failed: %v\n", i, errors.Is(err, fanseal.ErrAuthentication))
		}
	}
	// Output:
	// entry 0, entry 19
	// envelope 7: authentication failed: true
}
