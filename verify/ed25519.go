package verify

import (
	"crypto/ed25519"
	"fmt"
	"math"
	"slices"

	"filippo.io/edwards25519"
	"github.com/hdevalence/ed25519consensus"
)

// Batch sizes. On this project's reference machine a batch of n costs
// about 35 µs + n × 17 µs of CPU time, one single verification 37 µs.
const (
	// minBatch is the fewest items worth a batch of their own on another
	// core.
	minBatch = 8
	// maxBatch caps a batch: a batch of 64 saves under 4 % per signature
	// over two of 32, but finding one bad signature in it costs about 2.5
	// times the batch instead of 1.8 times, since blame re-checks every
	// item of the failed batch about once.
	maxBatch = 32
)

// ed25519Shape checks the lengths, which batch verification cannot report
// per item.
func ed25519Shape(it Item) error {
	if len(it.PublicKey) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrPublicKey, len(it.PublicKey), ed25519.PublicKeySize)
	}
	if len(it.Signature) != ed25519.SignatureSize {
		return fmt.Errorf("%w: %d bytes, want %d", ErrSignature, len(it.Signature), ed25519.SignatureSize)
	}
	return nil
}

// ed25519Single checks one signature under ZIP-215.
func ed25519Single(it Item) error {
	if err := ed25519Shape(it); err != nil {
		return err
	}
	if ed25519consensus.Verify(it.PublicKey, it.Message, it.Signature) {
		return nil
	}
	return ed25519Reject(it)
}

// ed25519Reject says why a well-formed signature was rejected: an encoding
// that does not decode, or else a failed equation. Only rejected items pay
// for the decoding.
func ed25519Reject(it Item) error {
	if _, err := new(edwards25519.Point).SetBytes(it.PublicKey); err != nil {
		return fmt.Errorf("%w: not a point on the curve", ErrPublicKey)
	}
	if _, err := new(edwards25519.Point).SetBytes(it.Signature[:32]); err != nil {
		return fmt.Errorf("%w: R is not a point on the curve", ErrSignature)
	}
	if _, err := new(edwards25519.Scalar).SetCanonicalBytes(it.Signature[32:]); err != nil {
		return fmt.Errorf("%w: S is not below the group order", ErrSignature)
	}
	return ErrInvalid
}

// ed25519Check checks the well-formed Ed25519 items at idx and calls bad
// with the index of each invalid one.
func ed25519Check(w window, items []Item, idx []int, bad func(int)) {
	if !ed25519Passes(items, idx) {
		ed25519Blame(w, items, idx, bad)
	}
}

// ed25519Passes reports whether every item at idx is valid: one batch
// verification, or a single one for a lone item (cheaper than a batch of
// one, with the same verdict).
func ed25519Passes(items []Item, idx []int) bool {
	if len(idx) == 1 {
		it := items[idx[0]]
		return ed25519consensus.Verify(it.PublicKey, it.Message, it.Signature)
	}
	bv := ed25519consensus.NewPreallocatedBatchVerifier(len(idx))
	for _, i := range idx {
		bv.Add(items[i].PublicKey, items[i].Message, items[i].Signature)
	}
	return bv.Verify()
}

// ed25519Blame calls bad for each invalid item of idx, a set known to hold
// at least one. It splits idx into about √n groups and checks all but the
// last, on idle cores where there are some; when those all passed, the
// last holds the bad items and is split without being checked. A batch
// verification always passes when every item passes single verification
// (each cofactored equation is zero, so any combination of them is), so a
// failed batch proves a bad item. Failing groups are split in turn.
//
// For one bad item in n this checks each item about once more, in √n
// batches of √n, where halving would check it about twice.
func ed25519Blame(w window, items []Item, idx []int, bad func(int)) {
	if len(idx) == 1 {
		bad(idx[0])
		return
	}
	groups := split(idx, int(math.Ceil(math.Sqrt(float64(len(idx))))))
	failed := make([]bool, len(groups))
	last := len(groups) - 1
	w.each(last, func(j int) { failed[j] = !ed25519Passes(items, groups[j]) })
	if !slices.Contains(failed[:last], true) {
		failed[last] = true // proven by the failure of idx
	} else {
		failed[last] = !ed25519Passes(items, groups[last])
	}
	// Only the failing groups go on, so the last of them runs here rather
	// than in a lent slot while this goroutine waits.
	var failing [][]int
	for j, g := range groups {
		if failed[j] {
			failing = append(failing, g)
		}
	}
	w.each(len(failing), func(j int) { ed25519Blame(w, items, failing[j], bad) })
}
