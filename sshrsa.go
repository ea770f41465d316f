package fanseal

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"fmt"

	"github.com/fanseal/fanseal/internal/format"
)

// ssh-rsa recipients: the file key sealed with RSAES-OAEP, SHA-256 and
// MGF1-SHA-256, in a stanza of type 0x06 (docs/FORMAT.md), under a label
// that binds it to fanseal, to the SSH key and to the envelope.

// sshRSALabel prefixes the OAEP label, which goes on with the SHA-256 of
// the SSH key and the envelope's preamble.
const sshRSALabel = "fanseal/v1 ssh-rsa"

// rsaTrials is what one pair of an ssh-rsa stanza and an ssh-rsa identity
// counts for in an anonymous envelope's trial budget: an RSA decryption
// costs several X25519 agreements.
const rsaTrials = 8

func newRSARecipient(key *rsa.PublicKey, k *sshKey) (*Recipient, error) {
	if key.N.Sign() <= 0 {
		// A negative mpint, which x/crypto/ssh reads and OpenSSH refuses:
		// BitLen would measure |n|, and nothing could open its stanzas.
		return nil, fmt.Errorf("%w: ssh-rsa key with a modulus that is not positive", ErrInvalidKey)
	}
	if bits := key.N.BitLen(); bits < 8*format.MinRSASize || bits > 8*format.MaxRSASize {
		return nil, fmt.Errorf("%w: ssh-rsa key of %d bits; fanseal takes 2048 to 4096 bits", ErrInvalidKey, bits)
	}
	// 2^24 − 1 is the bound of x/crypto/ssh (and so of age): a larger
	// exponent, which only a PKCS#1 PEM file can carry, would make a
	// recipient whose text no reader takes back.
	if key.E < 3 || key.E%2 == 0 || key.E > 1<<24-1 {
		return nil, fmt.Errorf("%w: ssh-rsa key with public exponent %d; fanseal takes odd exponents from 3 to 2^24 − 1", ErrInvalidKey, key.E)
	}
	k.rsa = key
	r := &Recipient{raw: k.wire, ssh: k}
	r.id, r.fp = k.keyID()
	return r, nil
}

func newRSAIdentity(key *rsa.PrivateKey, r *Recipient) (*Identity, error) {
	if err := key.Validate(); err != nil {
		return nil, fmt.Errorf("%w: RSA private key: %v", ErrInvalidKey, err)
	}
	if pub := r.rsaPub(); pub == nil || key.N.Cmp(pub.N) != 0 || key.E != pub.E {
		return nil, fmt.Errorf("%w: the RSA private key does not match its public key", ErrInvalidKey)
	}
	return &Identity{rsa: key, r: r}, nil
}

func rsaLabel(k *sshKey, preamble []byte) []byte {
	label := append([]byte(sshRSALabel), k.hash[:]...)
	return append(label, preamble...)
}

// wrapRSA appends an ssh-rsa stanza body for r to dst.
func (r *Recipient) wrapRSA(dst, preamble, fileKey []byte, anonymous bool) ([]byte, error) {
	if !anonymous {
		dst = append(dst, r.id[:]...)
	}
	ct, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, r.rsaPub(), fileKey, rsaLabel(r.ssh, preamble))
	if err != nil {
		return nil, err
	}
	return append(dst, ct...), nil
}

// rsaSize is the body size of r's ssh-rsa stanzas.
func (r *Recipient) rsaSize(anonymous bool) int {
	n := r.rsaPub().Size()
	if !anonymous {
		n += format.KeyIDSize
	}
	return n
}

// unwrapRSA opens an ssh-rsa stanza with identity i: one RSA decryption.
func (i *Identity) unwrapRSA(body, preamble []byte, anonymous bool) ([]byte, error) {
	_, ct, err := format.ParseRSA(body, anonymous)
	if err != nil {
		return nil, err
	}
	if size := i.r.rsaPub().Size(); len(ct) != size {
		return nil, fmt.Errorf("%w: ssh-rsa stanza of %d bytes for a %d-byte modulus", ErrAuthentication, len(ct), size)
	}
	k, err := i.resolve()
	if err != nil {
		return nil, err
	}
	keyAgreements.Add(1)
	stanzaOpens.Add(1)
	key, err := rsa.DecryptOAEP(sha256.New(), nil, k.rsa, ct, rsaLabel(i.r.ssh, preamble))
	return checkFileKey(key, err)
}
