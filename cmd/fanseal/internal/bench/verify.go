package bench

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"math/big"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	secpecdsa "github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
	"github.com/fanseal/fanseal/verify"
)

// verifyCells is the number of cells benchVerify measures.
const verifyCells = 3 + 2*4

// verifyLegend defines the terms of the verify table.
const verifyLegend = "legend: loop: each signature checked in turn with its scheme's own package (the baseline); batch: one Ed25519 " +
	"batch verification (ZIP-215, the loop's verdicts); parallel: the checks spread over every core; batch, 1 bad: a batch with one forged " +
	"signature, found and named; speedup: loop p50 over this p50"

// signedItems returns n valid items of scheme s, each under its own key.
func signedItems(s verify.Scheme, n int) ([]verify.Item, error) {
	items := make([]verify.Item, n)
	for i := range items {
		m := fmt.Appendf(nil, "confirmation %d", i)
		h := sha256.Sum256(m)
		it := verify.Item{Scheme: s, Message: m}
		switch s {
		case verify.Ed25519:
			pub, priv, _ := ed25519.GenerateKey(rand.Reader)
			it.PublicKey, it.Signature = pub, ed25519.Sign(priv, m)
		case verify.P256, verify.P256Fixed:
			k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			it.PublicKey, _ = k.PublicKey.Bytes()
			r, ss, err := ecdsa.Sign(rand.Reader, k, h[:])
			if err != nil {
				return nil, err
			}
			if s == verify.P256 {
				it.Signature, err = ecdsa.SignASN1(rand.Reader, k, h[:])
			} else {
				it.Signature = append(r.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
			}
			if err != nil {
				return nil, err
			}
		case verify.Secp256k1:
			k, _ := secp256k1.GeneratePrivateKey()
			it.PublicKey, it.Signature = k.PubKey().SerializeCompressed(), secpecdsa.Sign(k, h[:]).Serialize()
		case verify.BIP340:
			k, _ := btcec.NewPrivateKey()
			sig, err := schnorr.Sign(k, h[:])
			if err != nil {
				return nil, err
			}
			it.PublicKey, it.Message, it.Signature = schnorr.SerializePubKey(k.PubKey()), h[:], sig.Serialize()
		}
		items[i] = it
	}
	return items, nil
}

// loopVerify is the baseline: each item checked in turn with the scheme's
// own package, as a caller would without verify.
func loopVerify(items []verify.Item) error {
	for _, it := range items {
		ok := false
		h := sha256.Sum256(it.Message)
		switch it.Scheme {
		case verify.Ed25519:
			ok = ed25519.Verify(it.PublicKey, it.Message, it.Signature)
		case verify.P256, verify.P256Fixed:
			pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), it.PublicKey)
			if err != nil {
				return err
			}
			if it.Scheme == verify.P256 {
				ok = ecdsa.VerifyASN1(pub, h[:], it.Signature)
			} else {
				ok = ecdsa.Verify(pub, h[:], new(big.Int).SetBytes(it.Signature[:32]), new(big.Int).SetBytes(it.Signature[32:]))
			}
		case verify.Secp256k1:
			pub, err := secp256k1.ParsePubKey(it.PublicKey)
			if err != nil {
				return err
			}
			sig, err := secpecdsa.ParseDERSignature(it.Signature)
			ok = err == nil && sig.Verify(h[:], pub)
		case verify.BIP340:
			pub, err := schnorr.ParsePubKey(it.PublicKey)
			if err != nil {
				return err
			}
			sig, err := schnorr.ParseSignature(it.Signature)
			ok = err == nil && sig.Verify(it.Message, pub)
		}
		if !ok {
			return fmt.Errorf("%s signature rejected", it.Scheme)
		}
	}
	return nil
}

// allValid runs verify.Verify and fails unless every item passed.
func allValid(items []verify.Item) error {
	for _, err := range verify.Verify(items) {
		if err != nil {
			return err
		}
	}
	return nil
}

// benchVerify compares checking n signatures in a loop with the verify
// package: an Ed25519 batch (and the cost of finding one bad signature in
// it), and the other schemes in parallel.
func benchVerify(cfg config, w io.Writer) ([]Latency, error) {
	n := 64
	if !cfg.heavy {
		n = 16
	}
	fmt.Fprintf(w, "\nverify %d signatures (speedup over a loop of single verifications)\n%s\n%-12s %-14s %12s %12s %9s\n",
		n, verifyLegend, "scheme", "mode", "p50", "p99", "speedup")
	var out []Latency
	row := func(s verify.Scheme, mode string, d []float64, base float64) float64 {
		c := cell(d)
		c.Suite, c.Case, c.Recipients = s.String(), mode, n
		cfg.add(&out, c)
		if base == 0 {
			base = c.P50
		}
		fmt.Fprintf(w, "%-12s %-14s %12s %12s %8.1fx\n", s, mode, report.Time(c.P50), report.Time(c.P99), base/c.P50)
		return c.P50
	}
	for _, s := range verify.Schemes {
		items, err := signedItems(s, n)
		if err != nil {
			return nil, err
		}
		// The modes of a scheme are timed round-robin, as one row.
		loop := &job{f: func() error { return loopVerify(items) }}
		fast := &job{f: func() error { return allValid(items) }}
		jobs := []*job{loop, fast}
		if s == verify.Ed25519 {
			// One bad signature, moving through every position.
			pos := 0
			jobs = append(jobs, &job{f: func() error {
				at := pos % n
				pos++
				good := items[at]
				items[at].Message = []byte("forged")
				errs := verify.Verify(items)
				items[at] = good
				if errs[at] == nil {
					return fmt.Errorf("forged signature %d accepted", at)
				}
				return nil
			}})
		}
		if err := measureRow(cfg.budget, jobs...); err != nil {
			return nil, err
		}
		base := row(s, "loop", loop.d, 0)
		mode := "parallel"
		if s == verify.Ed25519 {
			mode = "batch"
		}
		row(s, mode, fast.d, base)
		if s == verify.Ed25519 {
			row(s, "batch, 1 bad", jobs[2].d, base)
		}
	}
	return out, nil
}
