package ledger

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// commitLabel derives the commit secret from a ledger secret:
// commit_secret = HMAC-SHA256(ledger_secret, "Commit S").
const commitLabel = "Commit S"

// A Secret is a ledger secret and the first seqno it applies to.
type Secret struct {
	From uint64
	Key  []byte
}

// secret is one ledger secret with its retained cipher.
type secret struct {
	from   uint64
	key    [KeySize]byte
	commit [sha256.Size]byte
	aead   cipher.AEAD
}

func newSecret(from uint64, key []byte) (*secret, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("%w: %d bytes, want %d", ErrKey, len(key), KeySize)
	}
	s := &secret{from: from}
	copy(s.key[:], key) // copied in, never aliased
	b, err := aes.NewCipher(s.key[:])
	if err != nil {
		return nil, err
	}
	if s.aead, err = cipher.NewGCM(b); err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(commitLabel))
	m.Sum(s.commit[:0])
	return s, nil
}

func (s *secret) wipe() {
	clear(s.key[:])
	clear(s.commit[:])
}

// Secrets holds a ledger's secrets, each applying from its seqno until the
// next one's. It is safe for concurrent use: encryption and decryption
// read an immutable, sorted table through an atomic pointer (no lock on
// the hot path), and Rekey, Rollback and Restore publish a new table under
// a mutex. Readers of raw key bytes (Secret, CommitEvidence) hold a read
// lock, so a secret removed by Rollback is cleared only once they are done.
type Secrets struct {
	mu    sync.RWMutex
	table atomic.Pointer[[]*secret]
	// initial is the secret NewSecrets made: Restore puts secrets before
	// it and Rekey after it, and Rollback never removes it or any before
	// it.
	initial *secret
}

// NewSecrets returns Secrets holding the initial ledger secret key,
// applying from seqno from. A nil key draws a fresh random one.
func NewSecrets(from uint64, key []byte) (*Secrets, error) {
	s, err := newSecret(from, orRandom(key))
	if err != nil {
		return nil, err
	}
	ss := &Secrets{initial: s}
	ss.table.Store(&[]*secret{s})
	return ss, nil
}

func orRandom(key []byte) []byte {
	if key == nil {
		key = make([]byte, KeySize)
		rand.Read(key)
	}
	return key
}

// lookup returns the secret that applies to seqno: the current secret
// directly, an older one by binary search.
func (ss *Secrets) lookup(seqno uint64) (*secret, error) {
	t := *ss.table.Load()
	if last := t[len(t)-1]; seqno >= last.from {
		return last, nil
	}
	i, found := slices.BinarySearchFunc(t, seqno, func(s *secret, seqno uint64) int {
		switch {
		case s.from < seqno:
			return -1
		case s.from > seqno:
			return 1
		}
		return 0
	})
	if !found {
		i--
	}
	if i < 0 {
		return nil, fmt.Errorf("%w: seqno %d precedes the first secret (from %d)", ErrUnknownSeqno, seqno, t[0].from)
	}
	return t[i], nil
}

// Rekey adds a ledger secret applying from seqno from, which must follow
// the current secret's. A nil key draws a fresh random one.
func (ss *Secrets) Rekey(from uint64, key []byte) error {
	s, err := newSecret(from, orRandom(key))
	if err != nil {
		return err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	t := *ss.table.Load()
	if last := t[len(t)-1]; from <= last.from {
		return fmt.Errorf("%w: rekey from seqno %d, not after the current secret's %d", ErrOrder, from, last.from)
	}
	nt := append(slices.Clip(t), s)
	ss.table.Store(&nt)
	return nil
}

// Rollback removes every secret added by Rekey that starts after seqno
// to, as when the ledger rolls back to to. The initial secret (the one
// NewSecrets made) always stays, and so do the historical secrets Restore
// put before it, even when to precedes them: entries from the initial
// secret's seqno on are sealed under it or a later secret, never under a
// historical one. It returns the number of secrets removed, whose key
// bytes are cleared.
func (ss *Secrets) Rollback(to uint64) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	t := *ss.table.Load()
	keep := slices.Index(t, ss.initial) + 1
	for keep < len(t) && t[keep].from <= to {
		keep++
	}
	if keep == len(t) {
		return 0
	}
	nt := slices.Clone(t[:keep])
	ss.table.Store(&nt)
	// Encryptors that loaded the old table may still use the removed
	// secrets' AEADs, which hold their own key schedule; only the raw key
	// bytes are cleared, and their readers hold the read lock.
	for _, s := range t[keep:] {
		s.wipe()
	}
	return len(t) - keep
}

// Restore adds historical secrets that precede every secret held, as a
// recovering node does. It refuses a secret at or after the earliest held
// one, and duplicates.
func (ss *Secrets) Restore(historical ...Secret) error {
	add := make([]*secret, 0, len(historical))
	for _, h := range historical {
		s, err := newSecret(h.From, h.Key)
		if err != nil {
			return err
		}
		add = append(add, s)
	}
	slices.SortFunc(add, func(a, b *secret) int { return cmpUint(a.from, b.from) })
	ss.mu.Lock()
	defer ss.mu.Unlock()
	t := *ss.table.Load()
	for i, s := range add {
		if s.from >= t[0].from {
			return fmt.Errorf("%w: restored secret from seqno %d overlaps the held secrets (from %d)", ErrOrder, s.from, t[0].from)
		}
		if i > 0 && add[i-1].from == s.from {
			return fmt.Errorf("%w: two restored secrets from seqno %d", ErrOrder, s.from)
		}
	}
	nt := append(add, t...)
	ss.table.Store(&nt)
	return nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Len returns the number of secrets held.
func (ss *Secrets) Len() int { return len(*ss.table.Load()) }

// Secret returns a copy of the secret that applies to seqno, for example
// to share it with a joining node.
func (ss *Secrets) Secret(seqno uint64) (Secret, error) {
	ss.mu.RLock()
	defer ss.mu.RUnlock()
	s, err := ss.lookup(seqno)
	if err != nil {
		return Secret{}, err
	}
	return Secret{From: s.from, Key: slices.Clone(s.key[:])}, nil
}

// CommitEvidence returns the commit-evidence nonce of a transaction:
// HMAC-SHA256(commit_secret, txid.String()), where commit_secret =
// HMAC-SHA256(ledger_secret, "Commit S") for the ledger secret in force at
// txid.Seqno. Revealing it after commit proves the transaction committed
// without revealing the ledger secret.
func (ss *Secrets) CommitEvidence(txid TxID) ([sha256.Size]byte, error) {
	ss.mu.RLock()
	defer ss.mu.RUnlock()
	var out [sha256.Size]byte
	s, err := ss.lookup(txid.Seqno)
	if err != nil {
		return out, err
	}
	m := hmac.New(sha256.New, s.commit[:])
	m.Write([]byte(txid.String()))
	m.Sum(out[:0])
	return out, nil
}
