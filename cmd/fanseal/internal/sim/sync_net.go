package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/fanseal/fanseal/drain"
	"github.com/fanseal/fanseal/internal/frame"
	"github.com/fanseal/fanseal/verify"
)

// A confirmation is an informee's signed response to a request:
//
//	seq (8) || participant (2) || approve (1) || request hash (32) || signature
//
// The signature covers the label "fanseal sim confirmation" and the 43
// bytes before it. The request hash is SHA-256 of the request's signed
// bytes.
const (
	confirmationBody = 8 + 2 + 1 + 32
	maxSignature     = 128
	confirmLabel     = "fanseal sim confirmation"
)

var (
	errBadSignature = errors.New("sim: invalid signature")
	errBadView      = errors.New("sim: view does not match its request")
)

type confirmation struct {
	seq         uint64
	participant int
	approve     bool
	reqHash     [32]byte
	sig         []byte
}

func (c *confirmation) signedBytes() []byte {
	return append([]byte(confirmLabel), c.marshal()[:confirmationBody]...)
}

func (c *confirmation) marshal() []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, confirmationBody+len(c.sig)), c.seq)
	b = binary.BigEndian.AppendUint16(b, uint16(c.participant))
	if c.approve {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = append(b, c.reqHash[:]...)
	return append(b, c.sig...)
}

func parseConfirmation(b []byte) (*confirmation, error) {
	if len(b) <= confirmationBody || len(b) > confirmationBody+maxSignature || b[10] > 1 {
		return nil, fmt.Errorf("sim: malformed confirmation of %d bytes", len(b))
	}
	c := &confirmation{seq: binary.BigEndian.Uint64(b), participant: int(binary.BigEndian.Uint16(b[8:])), approve: b[10] == 1,
		reqHash: [32]byte(b[11:43]), sig: append([]byte(nil), b[43:]...)}
	return c, nil
}

// A link is a participant's connection to the mediator. It dials on first
// use and again after an error; baseline sends one frame per confirmation,
// fanseal sends what queued meanwhile through a drain.Sender.
type link struct {
	addr   string
	c      *syncCounters
	mu     sync.Mutex // one frame in flight; guards conn and client
	conn   net.Conn
	client *frame.Client
	sender *drain.Sender[[]byte]
}

func newLink(side Side, addr string, c *syncCounters) *link {
	l := &link{addr: addr, c: c}
	if side == Fanseal {
		l.sender = drain.New(l.send, drain.Options[[]byte]{MaxItems: 256})
	}
	return l
}

// send writes one frame of items and waits for its acknowledgement. After
// an error it drops the connection; the next send dials again.
func (l *link) send(ctx context.Context, items [][]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client == nil {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", l.addr)
		if err != nil {
			return err
		}
		l.conn, l.client = conn, frame.NewClient(conn)
	}
	l.c.frames.Add(1)
	if err := l.client.Send(ctx, items); err != nil {
		l.conn.Close()
		l.conn, l.client = nil, nil
		return err
	}
	return nil
}

// submit sends one confirmation and returns once the mediator
// acknowledged it, or the send failed.
func (l *link) submit(ctx context.Context, item []byte) error {
	if l.sender != nil {
		return l.sender.Submit(ctx, item)
	}
	return l.send(ctx, [][]byte{item})
}

func (l *link) close() {
	if l.sender != nil {
		l.sender.Close()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn != nil {
		l.conn.Close()
		l.conn, l.client = nil, nil
	}
}

// The mediator accepts the participants' connections, checks the
// confirmations' signatures and emits a verdict per transaction once every
// informee confirmed. A confirmation seen twice (a resend) is ignored.
type mediator struct {
	side   Side
	addr   string
	scheme verify.Scheme
	keys   [][]byte // by participant
	ln     net.Listener
	queue  chan *confirmation
	// checking counts confirmations queued and not yet recorded.
	checking sync.WaitGroup
	serveWG  sync.WaitGroup
	checkWG  sync.WaitGroup

	mu      sync.Mutex
	conns   map[net.Conn]bool
	pending map[uint64]*pendingTx
	drop    map[int]bool // participants whose connection drops on their next frame
	c       *syncCounters

	received, duplicates, rejected, batches atomic.Int64
}

type pendingTx struct {
	reqHash   [32]byte
	confirmed []bool
	approve   bool
	decided   bool
	verdict   chan bool
	// Fanseal's checker: confirmations not yet checked, the informees
	// they come from, and how many informees are confirmed or waiting.
	unchecked  []*confirmation
	waiting    []bool
	candidates int
}

func startMediator(side Side, parts []*participant, c *syncCounters) (*mediator, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &mediator{side: side, addr: ln.Addr().String(), ln: ln, queue: make(chan *confirmation, 4096),
		conns: map[net.Conn]bool{}, pending: map[uint64]*pendingTx{}, drop: map[int]bool{}, c: c}
	for _, p := range parts {
		m.keys = append(m.keys, p.signer.pub)
	}
	m.scheme = parts[0].signer.scheme
	m.serveWG.Go(m.accept)
	if side == Baseline {
		m.checkWG.Go(m.checkOneByOne)
	} else {
		m.checkWG.Go(m.checkPerTransaction)
	}
	return m, nil
}

func (m *mediator) accept() {
	for {
		conn, err := m.ln.Accept()
		if err != nil {
			return
		}
		m.mu.Lock()
		m.conns[conn] = true
		m.mu.Unlock()
		m.serveWG.Go(func() { m.serve(conn) })
	}
}

// serve reads frames from one participant's connection. A drop ordered
// by dropNext closes the connection after the first confirmation of the
// next frame: the rest of the frame is lost, and so is its
// acknowledgement.
func (m *mediator) serve(conn net.Conn) {
	defer func() {
		m.mu.Lock()
		delete(m.conns, conn)
		m.mu.Unlock()
		conn.Close()
	}()
	dropped := false
	frame.Serve(conn, func(item []byte) {
		if dropped {
			return
		}
		c, err := parseConfirmation(item)
		if err != nil {
			m.rejected.Add(1)
			return
		}
		m.received.Add(1)
		m.checking.Add(1)
		m.queue <- c
		if m.takeDrop(c.participant) {
			dropped = true
			m.c.drops.Add(1)
			conn.Close()
		}
	})
}

// dropNext orders the connection of participant p dropped in its next
// frame.
func (m *mediator) dropNext(p int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drop[p] = true
}

func (m *mediator) takeDrop(p int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.drop[p]
	delete(m.drop, p)
	return d
}

// checkOneByOne is the baseline's checker: one signature at a time, in
// arrival order, on one goroutine.
func (m *mediator) checkOneByOne() {
	for c := range m.queue {
		ok := c.participant < len(m.keys) && checkSignature(Baseline, m.scheme, m.keys[c.participant], c.signedBytes(), c.sig) == nil
		m.record(c, ok)
		m.checking.Done()
	}
}

// checkPerTransaction is fanseal's checker. The verdict needs every
// informee's confirmation, so it holds a transaction's confirmations
// until one has arrived from every informee, then checks them together
// with one batch verification (split over the cores). A confirmation that
// fails (a forgery) is named by the batch and counted; its informee's
// next confirmation is checked on its own arrival.
func (m *mediator) checkPerTransaction() {
	for c := range m.queue {
		m.mu.Lock()
		p, ok := m.pending[c.seq]
		if !ok || c.participant >= len(m.keys) || p.confirmed[c.participant] {
			// Decided, or confirmed already: a resend or a forgery.
			m.mu.Unlock()
			m.late(c)
			continue
		}
		p.unchecked = append(p.unchecked, c)
		if !p.waiting[c.participant] {
			p.waiting[c.participant] = true
			p.candidates++
		}
		if p.candidates < len(m.keys) {
			m.mu.Unlock()
			continue
		}
		cs := p.unchecked
		p.unchecked = nil
		m.mu.Unlock()

		items := make([]verify.Item, len(cs))
		for i, c := range cs {
			items[i] = verify.Item{Scheme: m.scheme, PublicKey: m.keys[c.participant], Message: c.signedBytes(), Signature: c.sig}
		}
		m.batches.Add(1)
		for i, err := range verify.Verify(items) {
			m.record(cs[i], err == nil)
		}
		m.mu.Lock()
		if !p.decided {
			// A forgery was among them: only confirmed informees remain
			// candidates, the others' next confirmations are awaited.
			p.candidates = 0
			for i := range p.waiting {
				p.waiting[i] = p.confirmed[i]
				if p.confirmed[i] {
					p.candidates++
				}
			}
		}
		m.mu.Unlock()
		for range cs {
			m.checking.Done()
		}
	}
}

// late checks a confirmation of a decided transaction, or of an informee
// already confirmed, on its own: a forgery is rejected, anything else is
// a duplicate.
func (m *mediator) late(c *confirmation) {
	defer m.checking.Done()
	if c.participant < len(m.keys) && checkSignature(Fanseal, m.scheme, m.keys[c.participant], c.signedBytes(), c.sig) == nil {
		m.duplicates.Add(1)
	} else {
		m.rejected.Add(1)
	}
}

// register records a new transaction after checking its request's
// signature, and returns the channel of its verdict.
func (m *mediator) register(req *request, senderKey []byte) (<-chan bool, error) {
	msg := req.signedBytes()
	if err := checkSignature(m.side, m.scheme, senderKey, msg, req.sig); err != nil {
		return nil, fmt.Errorf("mediator: request: %w", err)
	}
	p := &pendingTx{reqHash: sha256.Sum256(msg), confirmed: make([]bool, len(m.keys)), approve: true,
		verdict: make(chan bool, 1), waiting: make([]bool, len(m.keys))}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending[req.seq] = p
	return p.verdict, nil
}

// record counts a checked confirmation towards its transaction's verdict.
func (m *mediator) record(c *confirmation, valid bool) {
	if !valid {
		m.rejected.Add(1)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.pending[c.seq]
	if !ok || p.confirmed[c.participant] || p.reqHash != c.reqHash {
		m.duplicates.Add(1)
		return
	}
	p.confirmed[c.participant] = true
	p.approve = p.approve && c.approve
	if !slices.Contains(p.confirmed, false) { // every informee confirmed
		p.decided = true
		p.verdict <- p.approve
		delete(m.pending, c.seq)
	}
}

// settle waits until every confirmation received has been checked.
func (m *mediator) settle() { m.checking.Wait() }

func (m *mediator) pendingCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.pending)
}

func (m *mediator) close() {
	m.ln.Close()
	m.mu.Lock()
	for c := range m.conns {
		c.Close()
	}
	m.mu.Unlock()
	m.serveWG.Wait()
	close(m.queue)
	m.checkWG.Wait()
}
