package kex

import (
	"crypto/aes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"golang.org/x/crypto/nacl/secretbox"
)

// heapAfterGC returns the live heap once the collector has run.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestChannelMemoryFlat: a Channel holds the same memory after a million
// seals as after the first (a hundred thousand with -short). A Channel that
// kept anything per box, 24 bytes of nonce in a map for example, would grow
// by tens of MiB.
func TestChannelMemoryFlat(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	for _, suite := range []Suite{Secp256k1, X25519} {
		t.Run("suite="+suite.String(), func(t *testing.T) {
			c, err := newChannel(suite, [32]byte{7}, 1, 2)
			if err != nil {
				t.Fatal(err)
			}
			msg := []byte("share")
			if _, err := c.Seal(msg); err != nil {
				t.Fatal(err)
			}
			before := heapAfterGC()
			for i := 0; i < n; i++ {
				if _, err := c.Seal(msg); err != nil {
					t.Fatal(err)
				}
			}
			after := heapAfterGC()
			runtime.KeepAlive(c)
			const slack = 1 << 20
			if after > before+slack {
				t.Fatalf("after %d seals the live heap grew by %d bytes (%.1f per seal); allowed %d in all",
					n, after-before, float64(after-before)/float64(n), slack)
			}
		})
	}
}

// TestChannelNonceTag checks the Secp256k1 nonce scheme from its
// definition: nonce = r || AES-256(T, r)[:8] with T =
// HKDF-SHA256-Expand(pairwise key, "fanseal/kex/v1 secp256k1 nonce tag" ||
// I2OSP(sender, 4), 32); a receiver that knows nothing of the tag (plain
// secretbox, as keep-core opens) opens fanseal's boxes, fanseal opens a box
// whose 24-byte nonce was drawn at random, and a member's own box sent back
// is refused by any Channel of that member with that peer, not only by the
// one that sealed it.
func TestChannelNonceTag(t *testing.T) {
	g := Group{Suite: Secp256k1, Size: 2, SessionID: "tag"}
	rounds, received := runRound(t, g)
	c12, err := rounds[1].Channel(received[1][2])
	if err != nil {
		t.Fatal(err)
	}
	c21, err := rounds[2].Channel(received[2][1])
	if err != nil {
		t.Fatal(err)
	}
	key := c12.Key()
	if c21.Key() != key {
		t.Fatal("the two members derived different pairwise keys")
	}
	tagOf := func(sender uint32, r []byte) []byte {
		info := binary.BigEndian.AppendUint32([]byte("fanseal/kex/v1 secp256k1 nonce tag"), sender)
		k, err := hkdf.Expand(sha256.New, key[:], string(info), 32)
		if err != nil {
			t.Fatal(err)
		}
		b, err := aes.NewCipher(k)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 16)
		b.Encrypt(out, r)
		return out[:8]
	}
	for range 100 {
		box, err := c12.Seal([]byte("for member 2"))
		if err != nil {
			t.Fatal(err)
		}
		if string(box[16:24]) != string(tagOf(1, box[:16])) {
			t.Fatalf("nonce %x: the tag is not AES-256(T, r)[:8] under member 1's T", box[:24])
		}
		nonce := [24]byte(box[:24])
		if pt, ok := secretbox.Open(nil, box[24:], &nonce, &key); !ok || string(pt) != "for member 2" {
			t.Fatal("plain secretbox does not open fanseal's box")
		}
	}
	// A box from a sender that draws its nonce at random (keep-core).
	var nonce [24]byte
	rand.Read(nonce[:])
	foreign := secretbox.Seal(nonce[:], []byte("from keep-core"), &nonce, &key)
	if pt, err := c12.Open(foreign); err != nil || string(pt) != "from keep-core" {
		t.Fatalf("a box with a random nonce: %q, %v", pt, err)
	}
	// Member 1's box sent back to member 1, to the Channel that sealed it
	// and to one derived again.
	box, _ := c12.Seal([]byte("for member 2"))
	again, err := rounds[1].Channel(received[1][2])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Channel{c12, again} {
		if pt, err := c.Open(box); !errors.Is(err, ErrReflected) || !errors.Is(err, ErrOpen) {
			t.Fatalf("member 1 opened its own box: %q, %v", pt, err)
		}
	}
	// A box with member 1's tag but sealed by another key is forged, not
	// reflected.
	var other [32]byte
	forged := secretbox.Seal(box[:24:24], []byte("x"), (*[24]byte)(box[:24]), &other)
	if _, err := c12.Open(forged); !errors.Is(err, ErrOpen) || errors.Is(err, ErrReflected) {
		t.Fatalf("forged box with member 1's tag: %v", err)
	}
}
