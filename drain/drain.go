// Package drain sends items in drained batches ("drain the queue"): while one send is in
// flight, new items queue; when it returns, everything queued goes out in
// the next send.
//
// Use it where many goroutines each send a small message over one
// connection and wait for it to be acknowledged (confirmation responses,
// votes, acks): one frame per message pays a round trip and a system call
// per message, while a drained batch pays them once for everything that
// arrived during the previous send. Nothing waits on a timer: a lone item
// is sent at once, and under load batches grow by themselves to what
// arrived during one send, so latency never rises above one send plus the
// one in flight.
//
// A Sender's one goroutine calls the send function with one batch
// at a time. Submit returns when the item's batch was sent (nil), when its
// send failed (that error, for every item of the batch), or when the
// caller's context ends. Items of one goroutine that waits for each Submit
// are sent in order, each exactly once or reported failed. The queue is
// bounded: Submit blocks while it is full.
//
// The send function owns the connection. After an error it can drop the
// connection and dial again on its next call; the error goes to the items
// of the failed batch, and callers that resubmit them get them sent on the
// new connection. A failed send may have delivered part of its batch, so a
// receiver must tolerate a resent item.
package drain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Errors returned by Submit; match them with errors.Is.
var (
	// ErrClosed is returned by Submit after Close.
	ErrClosed = errors.New("drain: sender closed")
	// ErrTooLarge is returned by Submit for an item whose size alone
	// exceeds MaxBytes.
	ErrTooLarge = errors.New("drain: item larger than MaxBytes")
	// ErrInFlight is returned, together with the context's error, when
	// Submit's context ended after the item was handed to send: the send
	// may still deliver it, and it is not sent again.
	ErrInFlight = errors.New("drain: item handed to send before the context ended; it may be delivered")
)

// DefaultQueueSize is the queue bound when Options.QueueSize is 0.
const DefaultQueueSize = 1024

// Options configure a Sender. The zero value queues up to
// DefaultQueueSize items and sends all of them at once.
type Options[T any] struct {
	// MaxItems caps the items of one send; 0 means QueueSize.
	MaxItems int
	// MaxBytes caps the total Size of the items of one send; 0 means no
	// cap. It needs Size.
	MaxBytes int
	// Size returns an item's size for MaxBytes.
	Size func(T) int
	// QueueSize bounds the items waiting for a send, besides those in
	// flight; Submit blocks while the queue is full. 0 means
	// DefaultQueueSize. Memory follows from it (see Sender).
	QueueSize int
}

// A Sender sends the items submitted to it in drained batches through one
// sender goroutine. Its methods may be called from many goroutines.
//
// Bounds: at most QueueSize items wait (default 1 024), in at most
// QueueSize groups; a Submit beyond waits for room, for its context or for
// Close, holding nothing of the Sender's. One send is in flight at a time,
// with at most min(MaxItems, QueueSize) items (default 1 024) and, with
// MaxBytes, at most MaxBytes of them. The Sender keeps a copy of each item
// it holds (sizeof(T) bytes, beside what the item points to) and 8 bytes
// to name it, in slices with at most four times the room of what they hold,
// and under 256 bytes per group: at most 4 × (QueueSize + MaxItems) ×
// (sizeof(T) + 8) + 256 × QueueSize bytes, 512 KiB for the defaults and a
// slice or string. A Submit that gives up while its item waits leaves
// nothing behind. The Sender starts one goroutine, which Close ends.
type Sender[T any] struct {
	send     func(context.Context, []T) error
	maxItems int
	maxBytes int
	size     func(T) int

	slots   chan struct{} // a token per queued item: the queue bound
	wake    chan struct{} // the sender has work, or must stop
	closing chan struct{} // closed by Close
	stopped chan struct{} // closed when the sender returns

	mu sync.Mutex
	// queue holds the groups not yet taken by the sender, oldest first.
	// Each holds at least one item: a group whose submitters all gave up
	// leaves it, so it never holds more than QueueSize groups.
	queue  []*group[T]
	seq    uint64 // identifies queued items for removal
	closed bool
}

// A group is the items that will go out in one send.
type group[T any] struct {
	items   []T
	ids     []uint64
	bytes   int
	waiting int                // submitters still waiting
	taken   bool               // handed to the sender
	cancel  context.CancelFunc // cancels the send's context, once taken
	done    chan struct{}      // closed after the send returns
	err     error              // the send's error, set before done closes
}

// New starts a Sender that calls send with each batch, one call at a
// time. send gets a context that is done when every submitter of the batch
// has stopped waiting (their contexts ended), so a stalled send can give
// up. New panics if the options are negative, or MaxBytes is set without
// Size.
func New[T any](send func(ctx context.Context, items []T) error, opts Options[T]) *Sender[T] {
	if opts.MaxItems < 0 || opts.MaxBytes < 0 || opts.QueueSize < 0 {
		panic("drain: negative option")
	}
	if opts.MaxBytes > 0 && opts.Size == nil {
		panic("drain: MaxBytes needs Size")
	}
	if opts.QueueSize == 0 {
		opts.QueueSize = DefaultQueueSize
	}
	if opts.MaxItems == 0 {
		opts.MaxItems = opts.QueueSize
	}
	b := &Sender[T]{
		send:     send,
		maxItems: opts.MaxItems,
		maxBytes: opts.MaxBytes,
		size:     opts.Size,
		slots:    make(chan struct{}, opts.QueueSize),
		wake:     make(chan struct{}, 1),
		closing:  make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go b.run()
	return b
}

// Submit queues item and waits for its batch's send. It returns nil once
// the send returned nil, or the send's error; ErrClosed after Close;
// ErrTooLarge for an item over MaxBytes.
//
// If ctx ends first, Submit returns at once. An item still queued is
// removed and never sent, and Submit returns ctx.Err(). An item already
// handed to send cannot be recalled: Submit returns an error matching both
// ErrInFlight and ctx.Err(), and the send goes on (its context is canceled
// once every item of the batch is abandoned). Either way the item is never
// sent twice by the Sender.
func (b *Sender[T]) Submit(ctx context.Context, item T) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	size := 0
	if b.maxBytes > 0 {
		if size = b.size(item); size > b.maxBytes {
			return fmt.Errorf("%w: %d bytes, MaxBytes is %d", ErrTooLarge, size, b.maxBytes)
		}
	}
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-b.closing:
		return ErrClosed
	}

	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		<-b.slots
		return ErrClosed
	}
	g := b.openGroup(size)
	b.seq++
	id := b.seq
	g.items = append(g.items, item)
	g.ids = append(g.ids, id)
	g.bytes += size
	g.waiting++
	b.mu.Unlock()
	b.signal()

	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
	}
	b.mu.Lock()
	if !g.taken {
		i := slices.Index(g.ids, id)
		var zero T
		g.items[i] = zero // drop the reference before shifting
		g.items = slices.Delete(g.items, i, i+1)
		g.ids = slices.Delete(g.ids, i, i+1)
		if len(g.items) <= cap(g.items)/4 {
			// Give back the room of the items that left: a group full
			// once and abandoned down to one item would keep MaxItems
			// places, QueueSize/2 such groups a square of the bound.
			g.items, g.ids = slices.Clone(g.items), slices.Clone(g.ids)
		}
		g.bytes -= size
		if g.waiting--; g.waiting == 0 {
			b.queue = slices.DeleteFunc(b.queue, func(q *group[T]) bool { return q == g })
		}
		b.mu.Unlock()
		<-b.slots
		return ctx.Err()
	}
	if g.waiting--; g.waiting == 0 {
		g.cancel()
	}
	b.mu.Unlock()
	select {
	case <-g.done: // the send finished meanwhile: its answer is exact
		return g.err
	default:
		return fmt.Errorf("%w: %w", ErrInFlight, ctx.Err())
	}
}

// openGroup returns the group a new item of this size joins: the newest
// one, if it has room, or a new one. b.mu is held.
func (b *Sender[T]) openGroup(size int) *group[T] {
	if n := len(b.queue); n > 0 {
		g := b.queue[n-1]
		if len(g.items) < b.maxItems && (b.maxBytes == 0 || g.bytes+size <= b.maxBytes) {
			return g
		}
	}
	g := &group[T]{done: make(chan struct{})}
	b.queue = append(b.queue, g)
	return g
}

func (b *Sender[T]) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// run is the sender goroutine: it takes the oldest group, sends it, and
// repeats, until Close and an empty queue.
func (b *Sender[T]) run() {
	defer close(b.stopped)
	for {
		b.mu.Lock()
		for len(b.queue) == 0 && !b.closed {
			b.mu.Unlock()
			<-b.wake
			b.mu.Lock()
		}
		if len(b.queue) == 0 {
			b.mu.Unlock()
			return
		}
		g := b.queue[0]
		b.queue[0] = nil
		b.queue = b.queue[1:]
		g.taken = true
		n := len(g.items)
		var ctx context.Context
		ctx, g.cancel = context.WithCancel(context.Background())
		b.mu.Unlock()

		for range n {
			<-b.slots
		}
		g.err = b.send(ctx, g.items)
		g.cancel()
		close(g.done)
	}
}

// Close sends what is queued, waits for the sender goroutine to return,
// and makes later Submits fail with ErrClosed. Submits waiting for room in
// the queue fail with ErrClosed too. Close waits for a stalled send; it
// returns nil, and may be called more than once.
func (b *Sender[T]) Close() error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.closing)
	}
	b.mu.Unlock()
	b.signal()
	<-b.stopped
	return nil
}
