package sim

import (
	"bufio"
	"cmp"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/fanseal/fanseal/ledger"
)

// LedgerOptions configure the ledger workload. Zero values select the
// defaults.
type LedgerOptions struct {
	// Workers execute transactions concurrently (default GOMAXPROCS).
	Workers int
	// Entries is the number of entries of each write set, public and
	// private (default 4).
	Entries int
	// MinSize and MaxSize bound an entry's value size (64 B to 1 KiB).
	MinSize, MaxSize int
	// SignatureInterval is the number of transactions between signature
	// transactions (default 100).
	SignatureInterval int
	// Dir holds the ledger files; "" uses a temporary directory, removed
	// afterwards.
	Dir string
	// DiskRate, if positive, caps the bytes per second written to the
	// ledger file: a disk slower than the workers, which the writer then
	// holds back (backpressure), so that a closed loop slows to it and an
	// open loop sheds what it cannot admit.
	DiskRate int64
}

func (o *LedgerOptions) defaults() {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Entries <= 0 {
		o.Entries = 4
	}
	if o.MinSize <= 0 {
		o.MinSize = 64
	}
	if o.MaxSize < o.MinSize {
		o.MaxSize = max(o.MinSize, 1024)
	}
	if o.SignatureInterval <= 0 {
		o.SignatureInterval = 100
	}
}

// Ledger returns the confidential ledger workload.
//
// Workers execute transactions, each producing a public and a private
// write set; the private one is sealed under the ledger secret in force
// with a TxID-derived IV, the public one as its additional data. Entries
// go to a ledger file in seqno order through a buffer; every
// SignatureInterval transactions a signature transaction (the interval's
// hash chained to the previous signature's, commit evidence, an Ed25519
// signature) is appended and the file is synced. Halfway through, the
// ledger secret is rekeyed; at the end, the entries after the last
// signature are rolled back (truncated). Then an auditor reads the file
// from the start with only the ledger secrets and the node's public key,
// and checks every entry under its historical secret.
//
// Baseline builds a new AES-GCM cipher (aes.NewCipher, cipher.NewGCM) for
// every transaction; Fanseal seals with ledger.Encryptor's retained
// contexts. Both write byte-identical entries.
//
// Faults: a flipped ciphertext bit, a private entry moved to another
// seqno, and a stale node's entries and torn write after the rollback
// point; the auditor must reject exactly those.
func Ledger(o LedgerOptions) Workload {
	o.defaults()
	return &ledgerWorkload{o}
}

type ledgerWorkload struct{ o LedgerOptions }

func (*ledgerWorkload) Name() string { return "ledger" }

func (l *ledgerWorkload) Describe() string {
	d := fmt.Sprintf("%d workers, write sets of %d public + %d private entries of %d–%d B, a signature every %d transactions",
		l.o.Workers, l.o.Entries, l.o.Entries, l.o.MinSize, l.o.MaxSize, l.o.SignatureInterval)
	if l.o.DiskRate > 0 {
		d += fmt.Sprintf(", a disk of %s/s", mib(float64(l.o.DiskRate)))
	}
	return d
}

// A slowDisk writes to w at most rate bytes per second: a write that
// would get ahead waits. An idle disk saves up at most slowDiskBurst of
// writing.
type slowDisk struct {
	w    io.Writer
	rate int64
	next time.Time // when the writes so far are done
	// now and sleep are time.Now and time.Sleep; tests replace them.
	now   func() time.Time
	sleep func(time.Duration)
}

const slowDiskBurst = 100 * time.Millisecond

func newSlowDisk(w io.Writer, rate int64) *slowDisk {
	return &slowDisk{w: w, rate: rate, now: time.Now, sleep: time.Sleep}
}

func (d *slowDisk) Write(p []byte) (int, error) {
	now := d.now()
	d.next = later(d.next, now.Add(-slowDiskBurst)).Add(time.Duration(float64(len(p)) / float64(d.rate) * float64(time.Second)))
	if wait := d.next.Sub(now); wait > 0 {
		d.sleep(wait)
	}
	return d.w.Write(p)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Names of the ledger's profile rules.
const (
	ShareAESGCM   = "AES-GCM seal/open"
	ShareKeySetup = "AES-GCM key setup"
)

// keySetup are the functions that build an AES-GCM context: key expansion
// and the GHASH key and tables.
var keySetup = []string{"crypto/aes.NewCipher", "crypto/cipher.NewGCM", "crypto/internal/fips140/aes.New", "crypto/internal/fips140/aes/gcm.New"}

// liveBound: the entries in flight (an open loop's bound or a worker's,
// each two write sets of Entries values of at most MaxSize), the writer's
// 256 KiB buffer and the entries waiting for their predecessors (no more
// than are in flight).
func (l *ledgerWorkload) liveBound(cfg *Config) uint64 {
	entry := uint64(2*l.o.Entries*(l.o.MaxSize+64)) * 2
	inFlight := uint64(max(DefaultOpenBound, l.o.Workers, cfg.Concurrency))
	return 2*inFlight*entry + 256<<10
}

func (*ledgerWorkload) rules() []Rule {
	return []Rule{
		{Name: ShareAESGCM, Prefix: []string{"crypto/internal/fips140/aes", "crypto/cipher.", "crypto/aes."}, Except: keySetup},
		{Name: ShareKeySetup, Prefix: keySetup},
	}
}

// ledgerWorld is one side's ledger: its secrets, its node key, its file.
type ledgerWorld struct {
	o       LedgerOptions
	side    Side
	cfg     *Config
	secrets *ledger.Secrets
	enc     *ledger.Encryptor
	node    ed25519.PrivateKey
	dir     string
	tmpDir  bool
	path    string
	file    *os.File
	rec     recorder
	runs    int

	// The sequencer hands out transaction indexes; it also orders rekeys.
	seqMu  sync.Mutex
	nextTx uint64
	keys   []ledger.Secret // every secret added, in order (the baseline's keys, the auditor's)

	// The writer state, under wmu: entries wait in pending until every
	// earlier seqno is written.
	wmu      sync.Mutex
	out      *bufio.Writer
	pending  map[uint64]*txEntry
	written  uint64    // last seqno written
	offset   int64     // bytes written
	ivHash   hash.Hash // SHA-256 of the frames since the last signature
	lastRoot [32]byte
	waiting  []time.Time // due times of transactions since the last signature
	unsynced []time.Time // due times of signed transactions not yet synced
	syncReq  chan struct{}
	syncWG   sync.WaitGroup
	syncErr  error
	lastSig  struct {
		seqno  uint64
		offset int64
		txs    int // transactions covered by signatures so far
	}
	txs, sigs  int
	firstOfInt []frameRef // the first transaction frame of each interval (for faults)
	load       Load

	audit      auditResult
	rolledBack int
	injected   faultsInjected
}

type txEntry struct {
	frame []byte
	due   time.Time
}

// frameRef locates one transaction's frame in the file.
type frameRef struct {
	seqno  uint64
	offset int64
	size   int
}

// ledgerView is the view every transaction of the run executes in.
const ledgerView = 2

func (l *ledgerWorkload) newWorld(ctx context.Context, side Side, cfg *Config) (world, error) {
	if cfg.Rounds < 2 {
		return nil, fmt.Errorf("the ledger rekeys halfway through: it needs at least 2 rounds, not %d", cfg.Rounds)
	}
	w := &ledgerWorld{o: l.o, side: side, cfg: cfg, pending: map[uint64]*txEntry{}, nextTx: 1}
	w.rec.declare("execute", "build the write sets and encrypt the private one")
	w.rec.declare("encrypt", "encrypt the private write set")
	w.rec.declare("commit", "from start to the sync of the signature that covers it")
	key := make([]byte, ledger.KeySize)
	rand.Read(key)
	var err error
	if w.secrets, err = ledger.NewSecrets(1, key); err != nil {
		return nil, err
	}
	w.keys = []ledger.Secret{{From: 1, Key: key}}
	w.enc = ledger.NewEncryptor(w.secrets)
	_, w.node, _ = ed25519.GenerateKey(rand.Reader)
	// The ledger files go in a new directory of the run's own, in Dir (where
	// they stay) or in the system's temporary directory (removed
	// afterwards): the run never writes, truncates or follows a name that
	// was there before it.
	if w.dir, err = os.MkdirTemp(l.o.Dir, "fanseal-sim-ledger-"); err != nil {
		return nil, err
	}
	w.tmpDir = l.o.Dir == ""
	w.path = filepath.Join(w.dir, "ledger-"+side.String()+".bin")
	if w.file, err = os.OpenFile(w.path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
		w.close()
		return nil, err
	}
	var dst io.Writer = w.file
	if l.o.DiskRate > 0 {
		dst = newSlowDisk(w.file, l.o.DiskRate)
	}
	w.out = bufio.NewWriterSize(dst, 256<<10)
	w.ivHash = sha256.New()
	w.syncReq = make(chan struct{}, 1)
	w.syncWG.Go(w.syncLoop)
	return w, nil
}

// seqno maps the i-th transaction (from 1) to its seqno: every
// (SignatureInterval+1)-th seqno is a signature transaction's.
func (w *ledgerWorld) seqno(i uint64) uint64 {
	s := uint64(w.o.SignatureInterval)
	return i + (i-1)/s
}

func (w *ledgerWorld) isSignature(seqno uint64) bool {
	return seqno%uint64(w.o.SignatureInterval+1) == 0
}

func (w *ledgerWorld) run(ctx context.Context, d time.Duration) error {
	w.runs++
	if w.runs == w.cfg.Rounds/2+1 {
		if err := w.rekey(); err != nil {
			return err
		}
	}
	l, err := drive(ctx, d, cmp.Or(w.cfg.Concurrency, w.o.Workers), w.cfg.Rate, w.cfg.Concurrency, w.transaction)
	w.load.add(l)
	return err
}

// rekey adds a new ledger secret from the next seqno on.
func (w *ledgerWorld) rekey() error {
	w.seqMu.Lock()
	defer w.seqMu.Unlock()
	from := w.seqno(w.nextTx)
	key := make([]byte, ledger.KeySize)
	rand.Read(key)
	if err := w.secrets.Rekey(from, key); err != nil {
		return err
	}
	w.keys = append(w.keys, ledger.Secret{From: from, Key: key})
	return nil
}

// transaction executes one transaction and hands its entry to the writer.
func (w *ledgerWorld) transaction(ctx context.Context, due time.Time) error {
	w.seqMu.Lock()
	i := w.nextTx
	w.nextTx++
	key := w.keyFor(w.seqno(i))
	w.seqMu.Unlock()
	txid := ledger.TxID{View: ledgerView, Seqno: w.seqno(i)}

	start := time.Now()
	rng := mrand.NewChaCha8(seedFor(w.cfg.Seed, i))
	public := w.writeSet(rng, "public", i)
	private := w.writeSet(rng, "private", i)
	frame := appendFrameHeader(make([]byte, 0, frameHeaderSize+4+len(public)+ledger.HeaderSize+len(private)+ledger.TagSize), kindTx, txid)
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(public)))
	frame = append(frame, public...)
	t := time.Now()
	var err error
	if w.side == Baseline {
		frame, err = freshEncrypt(frame, key, private, public, txid)
	} else {
		frame, err = w.enc.Encrypt(frame, private, public, txid, ledger.WriteSet)
	}
	if err != nil {
		return fmt.Errorf("encrypting %s: %w", txid, err)
	}
	now := time.Now()
	w.rec.add("encrypt", now.Sub(t))
	w.rec.add("execute", now.Sub(start))
	putFrameLen(frame)
	return w.write(txid.Seqno, &txEntry{frame: frame, due: due})
}

// keyFor returns the raw secret in force at seqno (the baseline's lookup).
func (w *ledgerWorld) keyFor(seqno uint64) []byte {
	for i := len(w.keys) - 1; i >= 0; i-- {
		if w.keys[i].From <= seqno {
			return w.keys[i].Key
		}
	}
	return nil
}

// freshEncrypt is the baseline: a new AES-GCM context for one entry,
// written in the ledger's layout (tag || IV || ciphertext) after dst.
func freshEncrypt(dst, key, plaintext, aad []byte, txid ledger.TxID) ([]byte, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	g, err := cipher.NewGCM(b)
	if err != nil {
		return nil, err
	}
	iv, err := ledger.IV(txid, ledger.WriteSet)
	if err != nil {
		return nil, err
	}
	start := len(dst)
	dst = append(dst, make([]byte, ledger.TagSize)...)
	dst = append(dst, iv[:]...)
	dst = g.Seal(dst, iv[:], plaintext, aad)
	end := len(dst) - ledger.TagSize
	copy(dst[start:], dst[end:])
	return dst[:end], nil
}

// seedFor derives the generator seed of the i-th operation, so both sides
// generate the same work.
func seedFor(seed, i uint64) [32]byte {
	var b [32]byte
	binary.BigEndian.PutUint64(b[:], seed)
	binary.BigEndian.PutUint64(b[8:], i)
	return sha256.Sum256(b[:])
}

// writeSet generates a write set of o.Entries entries: key length, key,
// value length, value.
func (w *ledgerWorld) writeSet(rng *mrand.ChaCha8, domain string, i uint64) []byte {
	var b []byte
	for e := range w.o.Entries {
		key := fmt.Appendf(nil, "%s/%d/%d", domain, i, e)
		size := w.o.MinSize + int(rng.Uint64()%uint64(w.o.MaxSize-w.o.MinSize+1))
		b = binary.BigEndian.AppendUint16(b, uint16(len(key)))
		b = append(b, key...)
		b = binary.BigEndian.AppendUint32(b, uint32(size))
		b = slices.Grow(b, size)
		v := b[len(b) : len(b)+size]
		rng.Read(v)
		b = b[:len(b)+size]
	}
	return b
}

// write hands the entry of seqno to the writer, which appends every entry
// whose predecessors are all written, and the signature transactions due.
func (w *ledgerWorld) write(seqno uint64, e *txEntry) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.pending[seqno] = e
	for {
		next := w.written + 1
		if w.isSignature(next) {
			if err := w.sign(next); err != nil {
				return err
			}
			continue
		}
		e, ok := w.pending[next]
		if !ok {
			return nil
		}
		delete(w.pending, next)
		if w.cfg.Faults && w.written == w.lastSig.seqno {
			w.firstOfInt = append(w.firstOfInt, frameRef{next, w.offset, len(e.frame)})
		}
		if err := w.append(e.frame); err != nil {
			return err
		}
		w.written = next
		w.txs++
		w.waiting = append(w.waiting, e.due)
	}
}

// append writes a frame and adds it to the interval's hash.
func (w *ledgerWorld) append(frame []byte) error {
	if _, err := w.out.Write(frame); err != nil {
		return fmt.Errorf("writing the ledger: %w", err)
	}
	w.ivHash.Write(frame)
	w.offset += int64(len(frame))
	return nil
}

// sign appends the signature transaction at seqno and syncs the file.
func (w *ledgerWorld) sign(seqno uint64) error {
	txid := ledger.TxID{View: ledgerView, Seqno: seqno}
	root := chainRoot(w.lastRoot, w.ivHash)
	evidence, err := w.secrets.CommitEvidence(txid)
	if err != nil {
		return err
	}
	frame := appendFrameHeader(nil, kindSignature, txid)
	frame = append(frame, root[:]...)
	frame = append(frame, evidence[:]...)
	frame = append(frame, ed25519.Sign(w.node, signedBytes(txid, root, evidence))...)
	putFrameLen(frame)
	if _, err := w.out.Write(frame); err != nil {
		return fmt.Errorf("writing the ledger: %w", err)
	}
	w.offset += int64(len(frame))
	if err := w.out.Flush(); err != nil {
		return fmt.Errorf("writing the ledger: %w", err)
	}
	// The syncer syncs the file in the background (group commit): the
	// workers go on meanwhile.
	w.unsynced = append(w.unsynced, w.waiting...)
	w.waiting = w.waiting[:0]
	select {
	case w.syncReq <- struct{}{}:
	default: // a sync is already requested; it will cover this one
	}
	w.written, w.lastRoot = seqno, root
	w.ivHash.Reset()
	w.sigs++
	w.lastSig.seqno, w.lastSig.offset, w.lastSig.txs = seqno, w.offset, w.txs
	return nil
}

// syncLoop syncs the file whenever a signature was written, then
// records the commit latency of every transaction the sync covered.
func (w *ledgerWorld) syncLoop() {
	for range w.syncReq {
		w.wmu.Lock()
		due := w.unsynced
		w.unsynced = nil
		w.wmu.Unlock()
		err := w.file.Sync()
		now := time.Now()
		if err != nil {
			w.wmu.Lock()
			w.syncErr = errors.Join(w.syncErr, err)
			w.wmu.Unlock()
			continue
		}
		for _, d := range due {
			w.rec.add("commit", now.Sub(d))
		}
	}
}

// stopSyncer waits for the last sync and stops the syncer.
func (w *ledgerWorld) stopSyncer() {
	if w.syncReq != nil {
		close(w.syncReq)
		w.syncWG.Wait()
		w.syncReq = nil
	}
}

// finish rolls back the entries after the last signature, injects the
// faults, and audits the file.
func (w *ledgerWorld) finish(ctx context.Context) error {
	w.stopSyncer()
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.syncErr != nil {
		return fmt.Errorf("syncing the ledger: %w", w.syncErr)
	}
	if len(w.pending) > 0 {
		return fmt.Errorf("%d entries never written", len(w.pending))
	}
	if err := w.out.Flush(); err != nil {
		return err
	}
	// Roll back: truncate after the last signature, forget newer secrets.
	w.rolledBack = w.txs - w.lastSig.txs
	if err := w.file.Truncate(w.lastSig.offset); err != nil {
		return err
	}
	if err := w.file.Sync(); err != nil {
		return err
	}
	w.secrets.Rollback(w.lastSig.seqno)
	kept := w.keys[:0:0]
	for _, k := range w.keys {
		if k.From <= w.lastSig.seqno || k.From == 1 {
			kept = append(kept, k)
		}
	}
	if w.cfg.Faults {
		var err error
		if w.injected, err = w.injectFaults(); err != nil {
			return fmt.Errorf("injecting faults: %w", err)
		}
	}
	var err error
	w.audit, err = audit(w.path, kept, w.node.Public().(ed25519.PublicKey))
	return err
}

func (w *ledgerWorld) report(r *SideResult) {
	r.Unit = "tx"
	r.Ops = w.txs
	r.Load = &w.load
	r.Latency = w.rec.sorted()
	committed := w.lastSig.txs
	r.count("transactions", int64(w.txs))
	r.count("signatures", int64(w.sigs))
	r.count("rekeys", int64(len(w.keys)-1))
	r.count("committed", int64(committed))
	r.count("rolled back", int64(w.rolledBack))
	a := w.audit
	r.count("auditor: accepted", int64(a.accepted))
	r.count("auditor: authentication failures", int64(a.authFailures))
	r.count("auditor: entries of another transaction", int64(a.wrongEntry))
	r.count("auditor: failed intervals", int64(a.badIntervals))
	r.count("auditor: after the rollback point", int64(a.uncommitted))
	r.count("auditor: torn frames", int64(a.torn))
	r.check("a rekey happened", len(w.keys) > 1, "%d ledger secrets", len(w.keys))
	r.check("nothing after the rollback point accepted", a.lastAccepted <= w.lastSig.seqno,
		"last accepted seqno %d, rollback point %d", a.lastAccepted, w.lastSig.seqno)
	if !w.cfg.Faults {
		r.check("auditor accepts every committed transaction", a.accepted == committed && a.problems() == 0,
			"accepted %d of %d committed; %d problems", a.accepted, committed, a.problems())
		return
	}
	i := w.injected
	r.count("injected: flipped bits", int64(i.flipped))
	r.count("injected: moved entries", int64(i.moved))
	r.count("injected: stale entries after the rollback point", int64(i.stale))
	r.count("injected: torn frames", int64(i.torn))
	want := committed - i.lostTxs
	r.check("auditor finds exactly the injected faults",
		a.authFailures == i.flipped && a.wrongEntry == i.moved && a.uncommitted == i.stale && a.torn == i.torn &&
			a.badIntervals == i.badIntervals && a.accepted == want,
		"accepted %d (want %d), %d authentication failures (injected %d), %d of another transaction (%d), %d failed intervals (%d), %d after the rollback point (%d), %d torn (%d)",
		a.accepted, want, a.authFailures, i.flipped, a.wrongEntry, i.moved, a.badIntervals, i.badIntervals, a.uncommitted, i.stale, a.torn, i.torn)
}

func (w *ledgerWorld) close() {
	w.stopSyncer()
	if w.file != nil {
		w.file.Close()
		w.file = nil
	}
	if w.tmpDir {
		os.RemoveAll(w.dir)
		w.tmpDir = false
	}
}

func (w *ledgerWorld) probe() (*recorder, string, func() int64, int64) {
	return &w.rec, "commit", func() int64 {
		w.wmu.Lock()
		defer w.wmu.Unlock()
		return int64(w.txs)
	}, 0
}
