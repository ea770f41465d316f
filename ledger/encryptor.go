package ledger

import (
	"fmt"
	"slices"
)

// An Encryptor seals and opens ledger entries with the retained AEADs of a
// Secrets. It is safe for concurrent use.
type Encryptor struct {
	secrets *Secrets
}

// NewEncryptor returns an Encryptor over secrets.
func NewEncryptor(secrets *Secrets) *Encryptor {
	return &Encryptor{secrets: secrets}
}

// Secrets returns the secrets the Encryptor uses.
func (e *Encryptor) Secrets() *Secrets { return e.secrets }

// Encrypt seals plaintext with aad as the entry of txid and typ, under the
// secret in force at txid.Seqno, and appends tag || IV || ciphertext to
// dst. If dst has room for len(plaintext)+HeaderSize more bytes, it
// allocates nothing. Empty plaintext with empty aad is refused: such an
// entry would authenticate nothing.
func (e *Encryptor) Encrypt(dst, plaintext, aad []byte, txid TxID, typ EntryType) ([]byte, error) {
	if len(plaintext) == 0 && len(aad) == 0 {
		return nil, ErrEmpty
	}
	s, err := e.secrets.lookup(txid.Seqno)
	if err != nil {
		return nil, err
	}
	start := len(dst)
	out := slices.Grow(dst, HeaderSize+len(plaintext)+TagSize)[:start+HeaderSize]
	iv := out[start+TagSize : start+HeaderSize]
	if err := putIV(iv, txid, typ); err != nil {
		return nil, err
	}
	// Seal writes ciphertext || tag after the header; the tag then moves
	// to the front. The IV lives in the output, so nothing escapes to the
	// heap.
	out = s.aead.Seal(out, iv, plaintext, aad)
	end := len(out) - TagSize
	copy(out[start:start+TagSize], out[end:])
	return out[:end], nil
}

// Decrypt opens entry (tag || IV || ciphertext) with aad, as the entry of
// type typ for txid, and appends the plaintext to dst. The caller says
// which entry it expects: an entry whose IV names another view, seqno or
// type is refused with ErrWrongEntry before any decryption, so storage
// cannot substitute a snapshot for the write set of the same TxID, or an
// entry of a view that was rolled back for the one that replaced it. The
// seqno selects the secret. If dst has room for len(entry) more bytes, it
// allocates nothing. dst and entry must not overlap. On failure dst is
// returned unchanged, and no plaintext is written past it.
func (e *Encryptor) Decrypt(dst, entry, aad []byte, txid TxID, typ EntryType) ([]byte, error) {
	var want [IVSize]byte
	if err := putIV(want[:], txid, typ); err != nil {
		return dst, err
	}
	if len(entry) < HeaderSize {
		return dst, fmt.Errorf("%w: %d bytes", ErrTruncated, len(entry))
	}
	iv := entry[TagSize:HeaderSize]
	if got := [IVSize]byte(iv); got != want {
		gotID, gotTyp := ParseIV(got)
		return dst, fmt.Errorf("%w: %s entry of %s read as %s entry of %s", ErrWrongEntry, gotTyp, gotID, typ, txid)
	}
	s, err := e.secrets.lookup(txid.Seqno)
	if err != nil {
		return dst, err
	}
	ct := entry[HeaderSize:]
	start := len(dst)
	// AEAD.Open wants ciphertext || tag: assemble it in dst and open in
	// place.
	grown := slices.Grow(dst, len(ct)+TagSize)
	buf := grown[start : start+len(ct)+TagSize]
	copy(buf, ct)
	copy(buf[len(ct):], entry[:TagSize])
	pt, err := s.aead.Open(buf[:0], iv, buf, aad)
	if err != nil {
		clear(buf)
		return dst, fmt.Errorf("%w: %s entry of %s", ErrAuthentication, typ, txid)
	}
	return grown[:start+len(pt)], nil
}
