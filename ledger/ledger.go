// Package ledger encrypts the private part of a confidential ledger's
// transactions, in the layout of a CCF-style ledger.
//
// Every transaction's private write set is sealed with AES-256-GCM under
// the ledger secret in force at its sequence number. The IV is derived
// from the transaction ID, never drawn at random:
//
//	IV = seqno (8 bytes, little-endian) || view (4 bytes, little-endian)
//
// with view ≤ 0x7FFFFFFF and the top bit of the last byte set for
// snapshots. Every node that executes the same transaction therefore
// produces the same bytes, and a seqno replayed after a rollback is sealed
// in a higher view, under a different IV. An entry is
//
//	tag (16) || IV (12) || ciphertext
//
// # Nonce uniqueness
//
// Under one ledger secret, a (seqno, view, type) triple identifies one
// transaction's entry: seqnos are unique within a view, a seqno is reused
// only after a rollback and then in a higher view, and the snapshot bit
// separates a snapshot from the write set of the same TxID. The IV is an
// injective encoding of that triple, so an IV repeats under a key only if
// the caller encrypts two different plaintexts for the same TxID and type,
// which the ledger's consensus rules out. Callers outside such a ledger
// must give the same guarantee.
//
// # Reading an entry
//
// The IV travels in the entry, so whoever controls the ledger's storage
// chooses it. Decrypt therefore takes the TxID and entry type the reader
// expects and refuses, with ErrWrongEntry, an entry whose IV encodes any
// other: a snapshot offered as the write set of the same TxID, or the entry
// of a view that was rolled back offered for the transaction that replaced
// it at the same seqno (both are sealed under the same secret and would
// otherwise authenticate). The check compares all twelve IV bytes with the
// IV Encrypt would build, before any decryption.
//
// # Retained ciphers
//
// Building an AES-GCM cipher (key expansion and GHASH tables) costs several
// times a small seal. An Encryptor keeps one cipher.AEAD per ledger secret,
// built once when the secret is added and dropped when it is removed. One
// AEAD per key is enough in Go, with no per-goroutine copies: the
// cipher.AEAD returned by cipher.NewGCM is safe for concurrent use,
// because Seal and Open read only state fixed at construction (the
// expanded key and hash key) and keep every per-call value on the stack or
// in the caller's buffers. TestConcurrentEncryptDecrypt checks this under
// the race detector.
//
// # FIPS 140-3
//
// The package works unchanged with GODEBUG=fips140=on (CI runs its tests
// that way). AES-GCM with a caller-built IV is what FIPS 140-3
// Implementation Guidance C.H calls an IV generated inside the module's
// boundary from a deterministic construction; Go's FIPS module only
// certifies its own IV constructions (a counter or random nonce under its
// control), so in FIPS mode Go treats these seals as a non-approved
// service: with GODEBUG=fips140=only, cipher.NewGCM refuses and NewSecrets
// returns that error. Deployments that need an approved service must move
// the IV construction into the validated module; the layout here does not
// change.
//
// # Key material
//
// Secrets are copied in, never aliased, and the copies this package owns
// (the 32-byte ledger secret and the derived commit secret) are cleared
// when a secret is removed by Rollback. Go offers no way to clear the
// expanded AES key schedule held inside crypto/aes, nor copies the garbage
// collector may have made; those live until the memory is reused.
package ledger

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// Sizes of the entry layout.
const (
	TagSize    = 16
	IVSize     = 12
	HeaderSize = TagSize + IVSize
	KeySize    = 32
	// MaxView is the largest view an IV can encode.
	MaxView = 0x7FFFFFFF
)

// Errors. Every error the package returns for bad input matches one of
// these with errors.Is.
var (
	ErrUnknownSeqno   = errors.New("ledger: no ledger secret applies to this seqno")
	ErrTruncated      = errors.New("ledger: entry shorter than its header")
	ErrAuthentication = errors.New("ledger: entry failed authentication")
	ErrWrongEntry     = errors.New("ledger: entry belongs to another transaction or entry type")
	ErrEmpty          = errors.New("ledger: empty plaintext with empty additional data")
	ErrView           = errors.New("ledger: view out of range")
	ErrEntryType      = errors.New("ledger: unknown entry type")
	ErrKey            = errors.New("ledger: invalid ledger secret")
	ErrOrder          = errors.New("ledger: ledger secrets out of order")
)

// A TxID identifies a transaction: the view (term) in which it was
// executed and its sequence number.
type TxID struct {
	View  uint64
	Seqno uint64
}

// String returns the canonical form "view.seqno".
func (t TxID) String() string {
	b := strconv.AppendUint(nil, t.View, 10)
	b = append(b, '.')
	return string(strconv.AppendUint(b, t.Seqno, 10))
}

// An EntryType says what an entry holds; it is part of the IV.
type EntryType uint8

const (
	// WriteSet is a transaction's private write set.
	WriteSet EntryType = iota
	// Snapshot is a snapshot of the private state at a TxID.
	Snapshot
)

// String returns "write-set" or "snapshot".
func (t EntryType) String() string {
	switch t {
	case WriteSet:
		return "write-set"
	case Snapshot:
		return "snapshot"
	}
	return fmt.Sprintf("entry-type(%d)", uint8(t))
}

// putIV writes the IV of (txid, typ) into iv.
func putIV(iv []byte, txid TxID, typ EntryType) error {
	if txid.View > MaxView {
		return fmt.Errorf("%w: view %d exceeds %d", ErrView, txid.View, MaxView)
	}
	if typ > Snapshot {
		return fmt.Errorf("%w: %d", ErrEntryType, uint8(typ))
	}
	binary.LittleEndian.PutUint64(iv[0:8], txid.Seqno)
	binary.LittleEndian.PutUint32(iv[8:12], uint32(txid.View))
	if typ == Snapshot {
		iv[11] |= 0x80
	}
	return nil
}

// IV returns the IV of an entry for txid and typ.
func IV(txid TxID, typ EntryType) ([IVSize]byte, error) {
	var iv [IVSize]byte
	err := putIV(iv[:], txid, typ)
	return iv, err
}

// ParseIV decodes an IV into its TxID and entry type.
func ParseIV(iv [IVSize]byte) (TxID, EntryType) {
	typ := WriteSet
	if iv[11]&0x80 != 0 {
		typ = Snapshot
	}
	view := binary.LittleEndian.Uint32(iv[8:12]) &^ 0x80000000
	return TxID{View: uint64(view), Seqno: binary.LittleEndian.Uint64(iv[0:8])}, typ
}
