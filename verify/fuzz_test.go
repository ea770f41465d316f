package verify

import (
	"errors"
	"testing"
)

// FuzzItem feeds arbitrary items to both paths: neither panics, a lone
// item's answer from Verify (Ed25519: in a batch with honest items) equals
// Single's, and the honest items stay valid.
func FuzzItem(f *testing.F) {
	for _, it := range mixed(f, 1) {
		f.Add(uint8(it.Scheme), it.PublicKey, it.Message, it.Signature)
	}
	for _, c := range edgeCases(f) {
		f.Add(uint8(c.item.Scheme), c.item.PublicKey, c.item.Message, c.item.Signature)
	}
	f.Add(uint8(0), []byte{}, []byte{}, []byte{})
	neighbours := honest(f, 2)
	sentinels := []error{ErrUnknownScheme, ErrPublicKey, ErrSignature, ErrMessage, ErrInvalid}
	f.Fuzz(func(t *testing.T, scheme uint8, pub, msg, sig []byte) {
		it := Item{Scheme(scheme), pub, msg, sig}
		single := Single(it)
		errs := (&Verifier{Parallelism: 2}).Verify([]Item{neighbours[0], it, neighbours[1]})
		if errs[0] != nil || errs[2] != nil {
			t.Fatalf("honest neighbours rejected: %v", errs)
		}
		if (single == nil) != (errs[1] == nil) {
			t.Fatalf("Single says %v, Verify says %v", single, errs[1])
		}
		for _, s := range sentinels {
			if errors.Is(single, s) != errors.Is(errs[1], s) {
				t.Fatalf("Single says %v, Verify says %v", single, errs[1])
			}
		}
	})
}
