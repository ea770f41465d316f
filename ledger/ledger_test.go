package ledger

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"testing"
)

func newEncryptor(t testing.TB) *Encryptor {
	s, err := NewSecrets(0, bytes.Repeat([]byte{1}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return NewEncryptor(s)
}

// freshEncrypt is the reference: a new AES-GCM cipher per call (freshSeal),
// as the unoptimised ledger did, laid out as tag || IV || ciphertext.
func freshEncrypt(key, plaintext, aad []byte, txid TxID, typ EntryType) []byte {
	iv, _ := IV(txid, typ)
	sealed := freshSeal(nil, key, iv[:], plaintext, aad)
	ct, tag := sealed[:len(plaintext)], sealed[len(plaintext):]
	return append(append(append([]byte{}, tag...), iv[:]...), ct...)
}

func TestIVLayout(t *testing.T) {
	iv, err := IV(TxID{View: 0x01020304, Seqno: 0x1112131415161718}, WriteSet)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(iv[:]); got != "181716151413121104030201" {
		t.Fatalf("IV = %s", got)
	}
	snap, _ := IV(TxID{View: 0x01020304, Seqno: 0x1112131415161718}, Snapshot)
	if got := hex.EncodeToString(snap[:]); got != "181716151413121104030281" {
		t.Fatalf("snapshot IV = %s", got)
	}
	if _, err := IV(TxID{View: MaxView + 1}, WriteSet); !errors.Is(err, ErrView) {
		t.Fatalf("view 2^31: %v", err)
	}
	max, _ := IV(TxID{View: MaxView, Seqno: 7}, Snapshot)
	if txid, typ := ParseIV(max); txid != (TxID{View: MaxView, Seqno: 7}) || typ != Snapshot {
		t.Fatalf("ParseIV = %v %v", txid, typ)
	}
	if (TxID{View: 3, Seqno: 42}).String() != "3.42" {
		t.Fatal("TxID.String")
	}
}

// TestMatchesFresh pins the retained path to a fresh cipher per call,
// byte for byte, over random keys, TxIDs, sizes and additional data.
func TestMatchesFresh(t *testing.T) {
	for range 50 {
		key := make([]byte, KeySize)
		rand.Read(key)
		s, _ := NewSecrets(0, key)
		e := NewEncryptor(s)
		for _, size := range []int{0, 1, 64, 1024, 65536} {
			pt := make([]byte, size)
			rand.Read(pt)
			aad := make([]byte, mrand.IntN(40)+1)
			rand.Read(aad)
			txid := TxID{View: mrand.Uint64N(MaxView + 1), Seqno: mrand.Uint64()}
			typ := EntryType(mrand.IntN(2))
			got, err := e.Encrypt(nil, pt, aad, txid, typ)
			if err != nil {
				t.Fatal(err)
			}
			if want := freshEncrypt(key, pt, aad, txid, typ); !bytes.Equal(got, want) {
				t.Fatalf("size %d: retained and fresh output differ", size)
			}
			back, err := e.Decrypt(nil, got, aad, txid, typ)
			if err != nil || !bytes.Equal(back, pt) {
				t.Fatalf("size %d: Decrypt = %v", size, err)
			}
		}
	}
}

func TestDeterministicAcrossNodes(t *testing.T) {
	key := bytes.Repeat([]byte{9}, KeySize)
	a, _ := NewSecrets(0, key)
	b, _ := NewSecrets(0, key)
	txid := TxID{View: 2, Seqno: 100}
	x, _ := NewEncryptor(a).Encrypt(nil, []byte("write set"), []byte("public"), txid, WriteSet)
	y, _ := NewEncryptor(b).Encrypt(nil, []byte("write set"), []byte("public"), txid, WriteSet)
	if !bytes.Equal(x, y) {
		t.Fatal("two nodes produce different bytes for the same transaction")
	}
	// The same seqno replayed after a rollback, in a higher view.
	z, _ := NewEncryptor(a).Encrypt(nil, []byte("write set"), []byte("public"), TxID{View: 3, Seqno: 100}, WriteSet)
	if bytes.Equal(x[TagSize:HeaderSize], z[TagSize:HeaderSize]) {
		t.Fatal("replayed seqno in a new view reuses the IV")
	}
}

func TestEmptyAndAADOnly(t *testing.T) {
	e := newEncryptor(t)
	if _, err := e.Encrypt(nil, nil, nil, TxID{Seqno: 1}, WriteSet); !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty plaintext and aad: %v", err)
	}
	entry, err := e.Encrypt(nil, nil, []byte("aad only"), TxID{Seqno: 1}, WriteSet)
	if err != nil || len(entry) != HeaderSize {
		t.Fatalf("aad-only entry: %d bytes, %v", len(entry), err)
	}
	pt, err := e.Decrypt(nil, entry, []byte("aad only"), TxID{Seqno: 1}, WriteSet)
	if err != nil || len(pt) != 0 {
		t.Fatalf("aad-only decrypt: %v", err)
	}
	if _, err := e.Decrypt(nil, entry, []byte("other"), TxID{Seqno: 1}, WriteSet); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("aad-only with wrong aad: %v", err)
	}
}

func TestDecryptErrors(t *testing.T) {
	e := newEncryptor(t)
	txid := TxID{View: 1, Seqno: 5}
	entry, _ := e.Encrypt(nil, []byte("secret write set"), []byte("aad"), txid, WriteSet)
	flip := func(i int) []byte { b := bytes.Clone(entry); b[i] ^= 1; return b }
	later, _ := NewSecrets(10, nil)
	for _, tc := range []struct {
		name  string
		e     *Encryptor
		entry []byte
		aad   string
		txid  TxID
		typ   EntryType
		want  error
	}{
		{"truncated-header", e, entry[:HeaderSize-1], "aad", txid, WriteSet, ErrTruncated},
		{"empty", e, nil, "aad", txid, WriteSet, ErrTruncated},
		{"wrong-tag", e, flip(0), "aad", txid, WriteSet, ErrAuthentication},
		{"wrong-ciphertext", e, flip(HeaderSize + 2), "aad", txid, WriteSet, ErrAuthentication},
		{"wrong-aad", e, entry, "AAD", txid, WriteSet, ErrAuthentication},
		{"truncated-ciphertext", e, entry[:len(entry)-1], "aad", txid, WriteSet, ErrAuthentication},
		{"wrong-seqno", e, entry, "aad", TxID{View: 1, Seqno: 6}, WriteSet, ErrWrongEntry},
		{"wrong-view", e, entry, "aad", TxID{View: 2, Seqno: 5}, WriteSet, ErrWrongEntry},
		{"wrong-type", e, entry, "aad", txid, Snapshot, ErrWrongEntry},
		{"iv-seqno-edited", e, flip(TagSize), "aad", txid, WriteSet, ErrWrongEntry},
		{"iv-view-edited", e, flip(TagSize + 8), "aad", txid, WriteSet, ErrWrongEntry},
		{"iv-type-edited", e, flip(TagSize + 11), "aad", txid, WriteSet, ErrWrongEntry},
		{"view-out-of-range", e, entry, "aad", TxID{View: MaxView + 1, Seqno: 5}, WriteSet, ErrView},
		{"unknown-type", e, entry, "aad", txid, Snapshot + 1, ErrEntryType},
		{"before-first-secret", NewEncryptor(later), entry, "aad", txid, WriteSet, ErrUnknownSeqno},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]byte, 3, 100)
			copy(dst, "abc")
			got, err := tc.e.Decrypt(dst, tc.entry, []byte(tc.aad), tc.txid, tc.typ)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
			if string(got) != "abc" || !bytes.Equal(dst[:cap(dst)][3:], make([]byte, 97)) {
				t.Fatal("a failed Decrypt left plaintext in dst")
			}
		})
	}
	// The next call with the same secret still works.
	if pt, err := e.Decrypt(nil, entry, []byte("aad"), txid, WriteSet); err != nil || string(pt) != "secret write set" {
		t.Fatalf("Decrypt after failures: %q %v", pt, err)
	}
	if _, err := e.Encrypt(nil, []byte("x"), nil, TxID{View: MaxView + 1, Seqno: 5}, WriteSet); !errors.Is(err, ErrView) {
		t.Fatalf("view too large: %v", err)
	}
	if _, err := e.Encrypt(nil, []byte("x"), nil, txid, Snapshot+1); !errors.Is(err, ErrEntryType) {
		t.Fatalf("unknown entry type: %v", err)
	}
	if _, err := NewEncryptor(later).Encrypt(nil, []byte("x"), nil, TxID{Seqno: 9}, WriteSet); !errors.Is(err, ErrUnknownSeqno) {
		t.Fatalf("encrypt before the first secret: %v", err)
	}
}

// TestSnapshotForWriteSet: storage offers the snapshot taken at a TxID
// where the reader asks for the write set of that TxID. Both are sealed
// under the same secret with the same seqno and view.
func TestSnapshotForWriteSet(t *testing.T) {
	e := newEncryptor(t)
	txid := TxID{View: 3, Seqno: 42}
	snap, _ := e.Encrypt(nil, []byte("snapshot of the private state"), []byte("public"), txid, Snapshot)
	ws, _ := e.Encrypt(nil, []byte("write set"), []byte("public"), txid, WriteSet)
	if _, err := e.Decrypt(nil, snap, []byte("public"), txid, WriteSet); !errors.Is(err, ErrWrongEntry) {
		t.Fatalf("snapshot read as the write set of %s: %v", txid, err)
	}
	if _, err := e.Decrypt(nil, ws, []byte("public"), txid, Snapshot); !errors.Is(err, ErrWrongEntry) {
		t.Fatalf("write set read as the snapshot of %s: %v", txid, err)
	}
	if pt, err := e.Decrypt(nil, snap, []byte("public"), txid, Snapshot); err != nil || string(pt) != "snapshot of the private state" {
		t.Fatalf("snapshot read as a snapshot: %q %v", pt, err)
	}
}

// TestRolledBackViewEntry: seqno 150 was written in view 1, rolled back,
// and written again in view 2 under the same ledger secret. Storage keeps
// the view-1 entry and offers it for 2.150.
func TestRolledBackViewEntry(t *testing.T) {
	s, _ := NewSecrets(1, nil)
	e := NewEncryptor(s)
	stale, _ := e.Encrypt(nil, []byte("pay mallory"), nil, TxID{View: 1, Seqno: 150}, WriteSet)
	if n := s.Rollback(149); n != 0 {
		t.Fatalf("rollback removed %d secrets", n)
	}
	current, _ := e.Encrypt(nil, []byte("pay alice"), nil, TxID{View: 2, Seqno: 150}, WriteSet)
	if _, err := e.Decrypt(nil, stale, nil, TxID{View: 2, Seqno: 150}, WriteSet); !errors.Is(err, ErrWrongEntry) {
		t.Fatalf("rolled-back view-1 entry read as 2.150: %v", err)
	}
	if pt, err := e.Decrypt(nil, current, nil, TxID{View: 2, Seqno: 150}, WriteSet); err != nil || string(pt) != "pay alice" {
		t.Fatalf("2.150: %q %v", pt, err)
	}
}

func TestRekeyAndRollback(t *testing.T) {
	s, _ := NewSecrets(1, nil)
	e := NewEncryptor(s)
	old, _ := e.Encrypt(nil, []byte("old"), nil, TxID{View: 1, Seqno: 50}, WriteSet)
	if err := s.Rekey(100, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Rekey(100, nil); !errors.Is(err, ErrOrder) {
		t.Fatalf("rekey at the same seqno: %v", err)
	}
	cur, _ := e.Encrypt(nil, []byte("new"), nil, TxID{View: 1, Seqno: 150}, WriteSet)
	oldKey, _ := s.Secret(50)
	newKey, _ := s.Secret(150)
	if oldKey.From != 1 || newKey.From != 100 || bytes.Equal(oldKey.Key, newKey.Key) {
		t.Fatal("rekey did not install a new secret")
	}
	for _, c := range []struct {
		entry []byte
		seqno uint64
		want  string
	}{{old, 50, "old"}, {cur, 150, "new"}} {
		if pt, err := e.Decrypt(nil, c.entry, nil, TxID{View: 1, Seqno: c.seqno}, WriteSet); err != nil || string(pt) != c.want {
			t.Fatalf("decrypt seqno %d: %q %v", c.seqno, pt, err)
		}
	}
	// Roll back to before the rekey: the seqno 150 entry no longer opens,
	// and seqno 150 is now sealed again in a higher view under the old
	// secret, with a different IV.
	if n := s.Rollback(120); n != 0 {
		t.Fatalf("rollback past the rekey removed %d", n)
	}
	if n := s.Rollback(99); n != 1 || s.Len() != 1 {
		t.Fatalf("rollback removed %d, %d left", n, s.Len())
	}
	if _, err := e.Decrypt(nil, cur, nil, TxID{View: 1, Seqno: 150}, WriteSet); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("entry of a rolled-back secret: %v", err)
	}
	replay, _ := e.Encrypt(nil, []byte("new"), nil, TxID{View: 2, Seqno: 150}, WriteSet)
	if bytes.Equal(replay[TagSize:HeaderSize], cur[TagSize:HeaderSize]) {
		t.Fatal("replayed seqno reuses the IV")
	}
	if pt, err := e.Decrypt(nil, replay, nil, TxID{View: 2, Seqno: 150}, WriteSet); err != nil || string(pt) != "new" {
		t.Fatalf("replayed entry: %v", err)
	}
	if n := s.Rollback(0); n != 0 || s.Len() != 1 {
		t.Fatal("rollback removed the initial secret")
	}
}

func TestRollbackClearsKeys(t *testing.T) {
	s, _ := NewSecrets(0, nil)
	s.Rekey(10, bytes.Repeat([]byte{7}, KeySize))
	removed := (*s.table.Load())[1]
	s.Rollback(5)
	if removed.key != [KeySize]byte{} || removed.commit != [32]byte{} {
		t.Fatal("a removed secret's key bytes were not cleared")
	}
}

func TestSecretsCopiedIn(t *testing.T) {
	key := bytes.Repeat([]byte{3}, KeySize)
	s, _ := NewSecrets(0, key)
	e := NewEncryptor(s)
	a, _ := e.Encrypt(nil, []byte("x"), nil, TxID{Seqno: 1}, WriteSet)
	key[0] ^= 0xff // the caller's buffer changes
	b, _ := e.Encrypt(nil, []byte("x"), nil, TxID{Seqno: 1}, WriteSet)
	if !bytes.Equal(a, b) {
		t.Fatal("the secret aliases the caller's buffer")
	}
	got, _ := s.Secret(1)
	got.Key[0] ^= 0xff
	c, _ := e.Encrypt(nil, []byte("x"), nil, TxID{Seqno: 1}, WriteSet)
	if !bytes.Equal(a, c) {
		t.Fatal("Secret returns an alias")
	}
	if _, err := NewSecrets(0, make([]byte, 16)); !errors.Is(err, ErrKey) {
		t.Fatalf("16-byte secret: %v", err)
	}
}

func TestRestore(t *testing.T) {
	k1, k2 := bytes.Repeat([]byte{1}, KeySize), bytes.Repeat([]byte{2}, KeySize)
	// A node that recovered from seqno 200 restores the earlier secrets.
	s, _ := NewSecrets(200, nil)
	old, _ := NewSecrets(1, k1)
	old.Rekey(100, k2)
	entry, _ := NewEncryptor(old).Encrypt(nil, []byte("history"), nil, TxID{View: 1, Seqno: 120}, WriteSet)
	if err := s.Restore(Secret{From: 100, Key: k2}, Secret{From: 1, Key: k1}); err != nil {
		t.Fatal(err)
	}
	if pt, err := NewEncryptor(s).Decrypt(nil, entry, nil, TxID{View: 1, Seqno: 120}, WriteSet); err != nil || string(pt) != "history" {
		t.Fatalf("historical entry: %v", err)
	}
	for _, bad := range [][]Secret{
		{{From: 200, Key: k1}},
		{{From: 300, Key: k1}},
		{{From: 0, Key: k1}, {From: 0, Key: k2}},
		{{From: 1, Key: k1}},
		{{From: 0, Key: k1[:5]}},
	} {
		if err := s.Restore(bad...); err == nil {
			t.Fatalf("Restore(%v) accepted an overlap or a bad key", bad[0].From)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("%d secrets after refused restores", s.Len())
	}
}

// TestRollbackAfterRestore: a node that restored historical secrets and
// then rolls back below its recovery point keeps its own initial secret,
// and the secrets restored before it: a rollback removes only secrets
// added after the initial one, and entries at or after the initial
// secret's seqno are sealed under it, not under a historical secret.
func TestRollbackAfterRestore(t *testing.T) {
	own, k1, k2, k3 := bytes.Repeat([]byte{9}, KeySize), bytes.Repeat([]byte{1}, KeySize), bytes.Repeat([]byte{2}, KeySize), bytes.Repeat([]byte{3}, KeySize)
	s, _ := NewSecrets(200, own)
	if err := s.Restore(Secret{From: 1, Key: k1}, Secret{From: 100, Key: k2}); err != nil {
		t.Fatal(err)
	}
	if err := s.Rekey(300, k3); err != nil {
		t.Fatal(err)
	}
	for _, to := range []uint64{150, 50, 0} {
		n := s.Rollback(to)
		if want := map[uint64]int{150: 1}[to]; n != want || s.Len() != 3 {
			t.Fatalf("Rollback(%d) removed %d secrets, %d left; want %d removed, 3 left", to, n, s.Len(), want)
		}
		for seqno, want := range map[uint64][]byte{1: k1, 120: k2, 200: own, 250: own, 400: own} {
			got, err := s.Secret(seqno)
			if err != nil || !bytes.Equal(got.Key, want) {
				t.Fatalf("after Rollback(%d), seqno %d: %x, %v; want %x", to, seqno, got.Key, err, want[:1])
			}
		}
	}
	entry, _ := NewEncryptor(s).Encrypt(nil, []byte("after the rollback"), nil, TxID{View: 2, Seqno: 250}, WriteSet)
	ownOnly, _ := NewSecrets(200, own)
	if pt, err := NewEncryptor(ownOnly).Decrypt(nil, entry, nil, TxID{View: 2, Seqno: 250}, WriteSet); err != nil || string(pt) != "after the rollback" {
		t.Fatalf("an entry written after the rollback is not sealed under the node's own secret: %v", err)
	}
}

func TestCommitEvidence(t *testing.T) {
	key := bytes.Repeat([]byte{5}, KeySize)
	s, _ := NewSecrets(0, key)
	got, err := s.CommitEvidence(TxID{View: 2, Seqno: 17})
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("Commit S"))
	m2 := hmac.New(sha256.New, m.Sum(nil))
	m2.Write([]byte("2.17"))
	if !bytes.Equal(got[:], m2.Sum(nil)) {
		t.Fatal("commit evidence does not follow the documented derivation")
	}
	s.Rekey(10, nil)
	other, _ := s.CommitEvidence(TxID{View: 2, Seqno: 17})
	if other == got {
		t.Fatal("commit evidence ignores the secret in force")
	}
	later, _ := NewSecrets(5, nil)
	if _, err := later.CommitEvidence(TxID{Seqno: 1}); !errors.Is(err, ErrUnknownSeqno) {
		t.Fatalf("commit evidence before the first secret: %v", err)
	}
}

func TestNoAllocations(t *testing.T) {
	e := newEncryptor(t)
	pt := make([]byte, 1024)
	aad := []byte("aad")
	dst := make([]byte, 0, 2048)
	txid := TxID{View: 1, Seqno: 9}
	entry, _ := e.Encrypt(nil, pt, aad, txid, WriteSet)
	if n := testing.AllocsPerRun(100, func() { e.Encrypt(dst[:0], pt, aad, txid, WriteSet) }); n != 0 {
		t.Fatalf("Encrypt allocates %.0f times", n)
	}
	if n := testing.AllocsPerRun(100, func() { e.Decrypt(dst[:0], entry, aad, txid, WriteSet) }); n != 0 {
		t.Fatalf("Decrypt allocates %.0f times", n)
	}
}

// TestConcurrentEncryptDecrypt runs many goroutines encrypting and
// decrypting under the same and different secrets while another rekeys
// and rolls back, to prove one retained AEAD per secret is safe (run it
// with -race).
func TestConcurrentEncryptDecrypt(t *testing.T) {
	s, _ := NewSecrets(0, nil)
	for i := uint64(1); i < 4; i++ {
		s.Rekey(i*1000, nil)
	}
	e := NewEncryptor(s)
	var writer, readers sync.WaitGroup
	stop := make(chan struct{})
	writer.Add(1)
	go func() { // rekeys and rolls back above the readers' range
		defer writer.Done()
		for i := uint64(0); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s.Rekey(10000+i, nil)
			if i%4 == 3 {
				s.Rollback(9999)
			}
			s.CommitEvidence(TxID{Seqno: 10000 + i})
			s.Secret(10000 + i)
		}
	}()
	var failures sync.Map
	for g := range 16 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			dst := make([]byte, 0, 512)
			for i := range 300 {
				seqno := uint64((g*7919 + i*31) % 4000)
				pt := fmt.Appendf(nil, "goroutine %d entry %d", g, i)
				entry, err := e.Encrypt(nil, pt, []byte("aad"), TxID{View: 1, Seqno: seqno}, WriteSet)
				if err != nil {
					failures.Store(g, err)
					return
				}
				got, err := e.Decrypt(dst[:0], entry, []byte("aad"), TxID{View: 1, Seqno: seqno}, WriteSet)
				if err != nil || !bytes.Equal(got, pt) {
					failures.Store(g, fmt.Errorf("round trip at %d: %v", seqno, err))
					return
				}
			}
		}()
	}
	readers.Wait()
	close(stop)
	writer.Wait()
	failures.Range(func(k, v any) bool {
		t.Errorf("goroutine %v: %v", k, v)
		return true
	})
}
