package fanseal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fanseal/fanseal/internal/hpke"
)

// PrecomputeOptions configure a Precomputer.
type PrecomputeOptions struct {
	// AEAD must match the AEAD of the Sealers that use the Precomputer;
	// 0 means AES256GCM.
	AEAD AEAD
	// PoolSize is the number of ready items kept per hot recipient
	// (default 8).
	PoolSize int
	// Workers is the number of background goroutines that refill pools
	// (default 1).
	Workers int
	// MaxPerSecond caps how many items the workers compute per second,
	// all together: the CPU budget (0: no cap). One item is one key
	// generation and one key agreement.
	MaxPerSecond int
	// MaxRecipients bounds the hot recipients (default 10 000): Add
	// refuses more.
	MaxRecipients int
}

// A Precomputer keeps, in background goroutines, a bounded pool of ready
// HPKE sender contexts (ephemeral key, key agreement and key schedule done)
// for each recipient that recurs, so that a Sealer with the Precomputed
// strategy wraps the file key for a hot recipient with one AEAD seal.
// Each item is used at most once. A recipient whose pool is empty is
// sealed the ordinary way. On a CPU with AVX-512 IFMA, a worker fills up
// to eight places of the pools of one suite in one pass (internal/x25519x8
// for X25519, internal/ecdhx8 for P-256 and secp256k1). Close stops every
// goroutine.
//
// Bounds: at most MaxRecipients hot recipients (default 10 000; Add
// refuses more), each with a pool of PoolSize items (default 8), and
// Workers goroutines (default 1), each computing at most eight items at a
// time into places it reserved, so that pools never hold more than
// MaxRecipients × PoolSize items. A ready item takes at most 1.5 KiB for
// the classical suites and 4 KiB for mlkem768x25519, and a hot recipient
// at most 256 bytes plus 8 per place in its pool beside them, so the pools
// take at most MaxRecipients × (256 + PoolSize × (8 + item)) bytes: about
// 120 MiB for the defaults and classical suites. The workers compute at
// most MaxPerSecond items a second, when it is set; they only refill what
// Sealers took, so a burst of seals costs no more than the items it used,
// and a recipient that is not hot costs nothing.
type Precomputer struct {
	opts PrecomputeOptions
	mu   sync.Mutex
	hot  map[hotKey]*hotRecipient
	list []*hotRecipient
	next int
	wake chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
	// budget paces the workers when MaxPerSecond is set.
	budgetMu sync.Mutex
	budgetAt time.Time
	computed atomic.Uint64
}

type hotRecipient struct {
	r    *Recipient
	cs   *cipherSuite
	pool chan *precomputed
	// pending counts the items workers are computing for this pool
	// (guarded by Precomputer.mu), so that two workers never compute for
	// the same free place.
	pending int
}

// A precomputed item: an encapsulated key and the sender context it goes
// with, sequence number 0, used once.
type precomputed struct {
	enc []byte
	ctx *hpke.Context
}

// senderItem runs the key schedule for r on the KEM shared secret ss,
// which it then clears, into the item of a stanza that carries the
// encapsulated key enc (nil for a shared stanza, which carries none).
func (cs *cipherSuite) senderItem(r *Recipient, enc, ss []byte) (*precomputed, error) {
	defer clear(ss)
	ctx, err := cs.hs.NewContext(ss, cs.schedFor(r))
	if err != nil {
		return nil, err
	}
	return &precomputed{enc: enc, ctx: ctx}, nil
}

// ErrClosed is returned by a closed Precomputer.
var ErrClosed = errors.New("fanseal: precomputer closed")

// NewPrecomputer starts a Precomputer for the hot recipients.
func NewPrecomputer(opts PrecomputeOptions, hot ...*Recipient) (*Precomputer, error) {
	if opts.AEAD == 0 {
		opts.AEAD = AES256GCM
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = 8
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.MaxRecipients <= 0 {
		opts.MaxRecipients = MaxRecipients
	}
	if _, err := lookupSuite(P256, opts.AEAD); err != nil {
		return nil, err
	}
	p := &Precomputer{opts: opts, hot: map[hotKey]*hotRecipient{}, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	if err := p.Add(hot...); err != nil {
		return nil, err
	}
	for range opts.Workers {
		p.wg.Add(1)
		go p.work()
	}
	return p, nil
}

// A hotKey indexes hot recipients by suite, form and public key: an SSH
// key's items have a key schedule of their own, so the plain X25519 key
// of the same point is another hot recipient. Lookups write
// hotKey{r.suite, r.ssh != nil, string(r.raw)} in the index expression
// itself, where the compiler converts without copying the key.
type hotKey struct {
	suite Suite
	ssh   bool
	raw   string
}

// Add makes recipients hot. It fails past MaxRecipients; the recipients
// before the one it fails at stay hot, and their pools fill.
func (p *Precomputer) Add(rs ...*Recipient) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.stop:
		return ErrClosed
	default:
	}
	for i, r := range rs {
		if r == nil {
			return fmt.Errorf("%w: recipient %d is nil", ErrInvalidKey, i)
		}
	}
	// The workers fill the pools of the recipients added, those before a
	// failure included.
	defer p.signal()
	for _, r := range rs {
		if _, ok := p.hot[hotKey{r.suite, r.ssh != nil, string(r.raw)}]; ok {
			continue
		}
		if len(p.hot) >= p.opts.MaxRecipients {
			return fmt.Errorf("%w: more than %d hot recipients", ErrRecipientCount, p.opts.MaxRecipients)
		}
		cs, err := lookupSuite(r.suite, p.opts.AEAD)
		if err != nil {
			return err
		}
		h := &hotRecipient{r: r, cs: cs, pool: make(chan *precomputed, p.opts.PoolSize)}
		p.hot[hotKey{r.suite, r.ssh != nil, string(r.raw)}] = h
		p.list = append(p.list, h)
	}
	return nil
}

// Remove makes recipients cold and drops their ready items.
func (p *Precomputer) Remove(rs ...*Recipient) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range rs {
		if r == nil {
			continue
		}
		h, ok := p.hot[hotKey{r.suite, r.ssh != nil, string(r.raw)}]
		if !ok {
			continue
		}
		delete(p.hot, hotKey{r.suite, r.ssh != nil, string(r.raw)})
		for i, x := range p.list {
			if x == h {
				p.list = append(p.list[:i:i], p.list[i+1:]...)
				break
			}
		}
	}
}

// Ready returns the number of ready items in all pools.
func (p *Precomputer) Ready() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range p.list {
		n += len(h.pool)
	}
	return n
}

// WaitFull blocks until every hot recipient's pool is full, or ctx ends.
func (p *Precomputer) WaitFull(ctx context.Context) error {
	t := time.NewTicker(200 * time.Microsecond)
	defer t.Stop()
	for {
		p.mu.Lock()
		full := true
		for _, h := range p.list {
			if len(h.pool) < cap(h.pool) {
				full = false
				break
			}
		}
		p.mu.Unlock()
		if full {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.stop:
			return ErrClosed
		case <-t.C:
		}
	}
}

// Close stops the background goroutines and waits for them.
func (p *Precomputer) Close() error {
	p.once.Do(func() { close(p.stop) })
	p.wg.Wait()
	return nil
}

func (p *Precomputer) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// take returns a ready item for r, or nil.
func (p *Precomputer) take(r *Recipient, aead AEAD) *precomputed {
	if aead != p.opts.AEAD {
		return nil
	}
	p.mu.Lock()
	h := p.hot[hotKey{r.suite, r.ssh != nil, string(r.raw)}]
	p.mu.Unlock()
	if h == nil {
		return nil
	}
	select {
	case it := <-h.pool:
		p.signal()
		return it
	default:
		return nil
	}
}

// needy returns the work of one refill, round robin, reserving it: the
// next hot recipient whose pool has room for an item nobody computes yet,
// and, if its KEM batches (on an IFMA CPU), more such places of
// recipients of the same suite up to one pass, a recipient once per
// place. It returns nil if every pool is full or being filled.
func (p *Precomputer) needy() []*hotRecipient {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*hotRecipient
	for range p.list {
		p.next = (p.next + 1) % len(p.list)
		h := p.list[p.next]
		free := cap(h.pool) - len(h.pool) - h.pending
		switch {
		case free <= 0, out != nil && h.cs != out[0].cs:
			continue
		case !h.cs.batches():
			if out != nil {
				continue
			}
			h.pending++
			return []*hotRecipient{h}
		}
		for range min(free, hpke.MaxBatch-len(out)) {
			out = append(out, h)
			h.pending++
		}
		if len(out) == hpke.MaxBatch {
			break
		}
	}
	return out
}

// done releases the places needy reserved.
func (p *Precomputer) done(hs []*hotRecipient) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range hs {
		h.pending--
	}
}

func (p *Precomputer) work() {
	defer p.wg.Done()
	for {
		hs := p.needy()
		if hs == nil {
			select {
			case <-p.wake:
				continue
			case <-p.stop:
				return
			}
		}
		for range hs {
			if !p.pace() {
				return
			}
		}
		its := p.compute(hs)
		for i, h := range hs {
			if its[i] == nil {
				// The recipient's key cannot be sealed to (a low-order
				// X25519 point): make it cold, so that no worker retries
				// it forever; a Sealer then refuses it as usual.
				p.Remove(h.r)
				continue
			}
			p.computed.Add(1)
			select {
			case h.pool <- its[i]:
			default: // unreachable: needy reserved the place
			}
		}
		// Only now that the items are in their pools: released earlier,
		// the places would look free to another worker, which would
		// compute items that find no room.
		p.done(hs)
		select {
		case <-p.stop:
			return
		default:
		}
	}
}

// compute returns an item for each of hs (nil where it failed): one
// pass for several items of a suite that batches, precompute otherwise.
func (p *Precomputer) compute(hs []*hotRecipient) []*precomputed {
	if len(hs) >= minBatch {
		rs := make([]*Recipient, len(hs))
		for i, h := range hs {
			rs[i] = h.r
		}
		its, _ := hs[0].cs.precomputeBatch(rs)
		return its
	}
	its := make([]*precomputed, len(hs))
	for i, h := range hs {
		its[i], _ = h.cs.precompute(h.r)
	}
	return its
}

// pace waits for the CPU budget; it returns false if the Precomputer
// closed meanwhile.
func (p *Precomputer) pace() bool {
	if p.opts.MaxPerSecond <= 0 {
		return true
	}
	interval := time.Second / time.Duration(p.opts.MaxPerSecond)
	p.budgetMu.Lock()
	now := time.Now()
	if p.budgetAt.Before(now) {
		p.budgetAt = now
	}
	at := p.budgetAt
	p.budgetAt = p.budgetAt.Add(interval)
	p.budgetMu.Unlock()
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.stop:
		return false
	}
}

// precompute does everything of a fresh stanza but the AEAD seal: a new
// ephemeral key, Encap and the key schedule.
func (cs *cipherSuite) precompute(r *Recipient) (*precomputed, error) {
	if cs.pq {
		enc, ss, err := hpke.HybridEncap(r.pq)
		if err != nil {
			return nil, err
		}
		return cs.senderItem(r, enc, ss)
	}
	eph, err := cs.kem.GenerateKey()
	if err != nil {
		return nil, err
	}
	ctx, err := cs.senderContext(eph, r)
	if err != nil {
		return nil, err
	}
	return &precomputed{enc: eph.PublicKey(), ctx: ctx}, nil
}
