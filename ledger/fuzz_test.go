package ledger

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecrypt opens arbitrary entries: never a panic, never plaintext from
// an entry that was not sealed, always a documented error.
func FuzzDecrypt(f *testing.F) {
	e := newEncryptor(f)
	entry, _ := e.Encrypt(nil, []byte("seed write set"), []byte("aad"), TxID{View: 1, Seqno: 3}, WriteSet)
	f.Add(entry, []byte("aad"), uint64(1), uint64(3), uint8(WriteSet))
	f.Add(entry, []byte("aad"), uint64(1), uint64(3), uint8(Snapshot)) // a write set offered as a snapshot
	f.Add([]byte{}, []byte{}, uint64(0), uint64(0), uint8(0))
	f.Fuzz(func(t *testing.T, entry, aad []byte, view, seqno uint64, typ uint8) {
		txid := TxID{View: view, Seqno: seqno}
		pt, err := e.Decrypt(nil, entry, aad, txid, EntryType(typ))
		if err == nil {
			again, err := e.Encrypt(nil, pt, aad, txid, EntryType(typ))
			if err != nil || !bytes.Equal(again, entry) {
				t.Fatalf("opened an entry that does not re-seal to itself: %v", err)
			}
			return
		}
		for _, want := range []error{ErrTruncated, ErrAuthentication, ErrWrongEntry, ErrUnknownSeqno, ErrView, ErrEntryType} {
			if errors.Is(err, want) {
				return
			}
		}
		t.Fatalf("undocumented error %v", err)
	})
}
