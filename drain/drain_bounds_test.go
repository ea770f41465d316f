package drain

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// The bounds of Sender's doc comment, and what the tests allow for the
// goroutines that call Submit, which are the caller's: a goroutine, its
// context and its channel.
const (
	groupBytes    = 256
	submitterByte = 1 << 10
)

// senderCeiling is the heap a Sender may hold with items of type T, by
// its doc comment: four times the room of QueueSize items waiting and MaxItems
// in flight, of sizeof(T) + 8 bytes each, and QueueSize groups.
func senderCeiling[T any](queue, maxItems int) int64 {
	var zero T
	return int64(4*(queue+maxItems)*(int(unsafe.Sizeof(zero))+8) + queue*groupBytes)
}

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// gate is a send function that blocks until it is opened, keeps nothing,
// and counts what it sent.
type gate struct {
	open    chan struct{}
	entered chan struct{}
	sent    atomic.Int64
}

func newGate() *gate { return &gate{open: make(chan struct{}), entered: make(chan struct{}, 1)} }

// release opens the gate, once.
func (g *gate) release() {
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func (g *gate) send(ctx context.Context, items [][4 << 10]byte) error {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	select {
	case <-g.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.sent.Add(int64(len(items)))
	return nil
}

type item = [4 << 10]byte

// TestQueueBound stalls the send and submits eight times as many items
// as the queue holds, from as many goroutines: QueueSize items wait, the
// rest of the submitters block, and the heap holds no more than the doc
// comment allows for QueueSize + MaxItems items (4 KiB each, by value,
// so the Sender's copies are the only ones on the heap). Opened, the
// send takes every item, once.
func TestQueueBound(t *testing.T) {
	const queue, maxItems, producers = 32, 8, 8 * 32
	g := newGate()
	before := liveHeap()
	b := New(g.send, Options[item]{QueueSize: queue, MaxItems: maxItems})
	defer b.Close()
	defer g.release() // before Close, which waits for the send
	var started atomic.Int64
	errs := make(chan error, producers)
	var wg sync.WaitGroup
	for range producers {
		wg.Go(func() {
			var it item // on this goroutine's stack
			started.Add(1)
			errs <- b.Submit(t.Context(), it)
		})
	}
	<-g.entered
	for started.Load() < producers || b.queued() < queue {
		select {
		case <-t.Context().Done():
			t.Fatal("timed out")
		default:
		}
		runtime.Gosched()
	}
	for range 100 {
		runtime.Gosched()
	}
	if n := b.queued(); n > queue {
		t.Fatalf("%d items queued, bound %d", n, queue)
	}
	grown := liveHeap() - before
	ceiling := senderCeiling[item](queue, maxItems) + producers*submitterByte
	if grown > ceiling {
		t.Fatalf("%d submitters of 4 KiB items against a queue of %d grew the heap by %d bytes, ceiling %d", producers, queue, grown, ceiling)
	}
	g.release()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := g.sent.Load(); n != producers {
		t.Fatalf("%d items sent, %d submitted", n, producers)
	}
}

// TestAbandonedGroupsBound has submitters give up on all but one item of
// each full group while the send is stalled, so that the queue holds as
// many groups as it can, each with one item left: the Sender must not
// keep the room the group once used, or it would hold QueueSize/2 groups
// of MaxItems places, a square of the queue bound.
func TestAbandonedGroupsBound(t *testing.T) {
	const queue, maxItems = 64, 32
	g := newGate()
	before := liveHeap()
	b := New(g.send, Options[item]{QueueSize: queue, MaxItems: maxItems})
	defer b.Close()
	defer g.release() // before Close, which waits for the send
	var wg sync.WaitGroup
	submit := func() (context.CancelFunc, chan error) {
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		wg.Go(func() {
			var it item
			errc <- b.Submit(ctx, it)
		})
		return cancel, errc
	}
	submit() // the send in flight
	<-g.entered
	type pending struct {
		cancel context.CancelFunc
		err    chan error
	}
	var kept []pending // one item of each group
	var current []pending
	for len(kept) < queue-maxItems-1 {
		// Fill the newest group, and open the next with one more item.
		for len(current) < maxItems {
			c, e := submit()
			current = append(current, pending{c, e})
			waitQueued(t, b, len(kept)+len(current))
		}
		c, e := submit()
		waitQueued(t, b, len(kept)+len(current)+1)
		// All but one of the full group give up.
		for _, p := range current[1:] {
			p.cancel()
			if err := <-p.err; !errors.Is(err, context.Canceled) {
				t.Fatalf("abandoned Submit: %v", err)
			}
		}
		kept = append(kept, current[0])
		current = []pending{{c, e}}
	}
	groups := func() int {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue)
	}
	if n := groups(); n != len(kept)+1 {
		t.Fatalf("%d groups queued, want %d", n, len(kept)+1)
	}
	grown := liveHeap() - before
	ceiling := senderCeiling[item](queue, maxItems) + (queue+maxItems)*submitterByte
	if grown > ceiling {
		t.Fatalf("%d groups of one item grew the heap by %d bytes, ceiling %d", groups(), grown, ceiling)
	}
	g.release()
	for _, p := range append(kept, current...) {
		if err := <-p.err; err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if n := g.sent.Load(); n != int64(1+len(kept)+len(current)) {
		t.Fatalf("%d items sent, want %d", n, 1+len(kept)+len(current))
	}
}
