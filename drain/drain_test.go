package drain

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a send function that records every batch; a send blocks
// while gate is set and not yet closed.
type recorder[T any] struct {
	mu      sync.Mutex
	batches [][]T
	gate    chan struct{}
	entered chan struct{} // receives once per send, if set
	fail    func(n int, items []T) error
}

func (r *recorder[T]) send(ctx context.Context, items []T) error {
	r.mu.Lock()
	n := len(r.batches)
	r.batches = append(r.batches, slices.Clone(items))
	gate, entered := r.gate, r.entered
	r.mu.Unlock()
	if entered != nil {
		entered <- struct{}{}
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if r.fail != nil {
		return r.fail(n, items)
	}
	return nil
}

func (r *recorder[T]) sent() [][]T {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.batches)
}

// queued is the number of items waiting, as the sender would see them.
func (b *Sender[T]) queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, g := range b.queue {
		n += len(g.items)
	}
	return n
}

// waitQueued spins until n items are queued.
func waitQueued[T any](t *testing.T, b *Sender[T], n int) {
	t.Helper()
	for b.queued() != n {
		select {
		case <-t.Context().Done():
			t.Fatal("timed out")
		default:
		}
		runtime.Gosched()
	}
}

func TestLoneItem(t *testing.T) {
	var r recorder[int]
	b := New(r.send, Options[int]{})
	defer b.Close()
	for i := range 3 {
		if err := b.Submit(t.Context(), i); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.sent(); !slices.EqualFunc(got, [][]int{{0}, {1}, {2}}, slices.Equal) {
		t.Fatalf("batches %v, want each item alone", got)
	}
}

// TestDrain holds the first send open, queues ten items from ten
// producers, and checks that they all go out together in the next send.
func TestDrain(t *testing.T) {
	r := recorder[int]{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	b := New(r.send, Options[int]{})
	defer b.Close()
	var wg sync.WaitGroup
	errs := make([]error, 11)
	wg.Go(func() { errs[0] = b.Submit(t.Context(), 0) })
	<-r.entered
	for i := 1; i <= 10; i++ {
		wg.Go(func() { errs[i] = b.Submit(t.Context(), i) })
	}
	waitQueued(t, b, 10)
	close(r.gate)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	got := r.sent()
	if len(got) != 2 || len(got[1]) != 10 {
		t.Fatalf("batches %v, want [0] then all ten", got)
	}
}

// TestManyProducers checks under load that every item is sent exactly
// once, in its producer's order, within MaxItems and MaxBytes. The first
// send is held open until every producer's first item is in it or queued
// (a producer waits for its item's send before the next),
// so that batching is certain whatever the scheduler does; after that the
// sends run free.
func TestManyProducers(t *testing.T) {
	type item struct{ producer, seq, size int }
	const producers, each = 64, 200
	r := recorder[item]{gate: make(chan struct{}), entered: make(chan struct{}, producers*each)}
	b := New(r.send, Options[item]{MaxItems: 16, MaxBytes: 1000, Size: func(it item) int { return it.size }, QueueSize: 100})
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for s := range each {
				if err := b.Submit(t.Context(), item{p, s, 1 + (p*7+s*13)%120}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	<-r.entered
	waitQueued(t, b, producers-len(r.sent()[0]))
	close(r.gate)
	wg.Wait()
	b.Close()
	next := make([]int, producers)
	batches := r.sent()
	for _, batch := range batches {
		bytes := 0
		for _, it := range batch {
			if it.seq != next[it.producer] {
				t.Fatalf("producer %d: item %d sent after %d", it.producer, it.seq, next[it.producer]-1)
			}
			next[it.producer]++
			bytes += it.size
		}
		if len(batch) > 16 || bytes > 1000 || len(batch) == 0 {
			t.Fatalf("batch of %d items, %d bytes", len(batch), bytes)
		}
	}
	for p, n := range next {
		if n != each {
			t.Errorf("producer %d: %d items sent, want %d", p, n, each)
		}
	}
	if len(batches) < 2 || len(batches[1]) < 2 {
		t.Errorf("%d sends for %d items, the second of %d: the items queued behind the held send were not batched", len(batches), producers*each, len(slices.Concat(batches[1:min(2, len(batches))]...)))
	}
}

// TestFailedSend fails the second send: each of its items gets that
// error, and the next batch goes through.
func TestFailedSend(t *testing.T) {
	boom := errors.New("connection reset")
	r := recorder[int]{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	r.fail = func(n int, _ []int) error {
		if n == 1 {
			return fmt.Errorf("write: %w", boom)
		}
		return nil
	}
	b := New(r.send, Options[int]{})
	defer b.Close()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	wg.Go(func() { errs[0] = b.Submit(t.Context(), 0) })
	<-r.entered
	for i := 1; i < 5; i++ { // batch 1, which fails
		wg.Go(func() { errs[i] = b.Submit(t.Context(), i) })
	}
	waitQueued(t, b, 4)
	close(r.gate)
	wg.Wait()
	for i := 5; i < 8; i++ { // batch 2 and later
		errs[i] = b.Submit(t.Context(), i)
	}
	for i, err := range errs {
		if failed := i >= 1 && i < 5; failed != errors.Is(err, boom) || !failed && err != nil {
			t.Errorf("item %d: %v", i, err)
		}
	}
}

// TestStalledSend holds a send forever: the queue stays within its bound,
// producers block, and ending their contexts frees them, each with the
// answer its item's state calls for.
func TestStalledSend(t *testing.T) {
	r := recorder[int]{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	defer close(r.gate)
	const queue = 4
	b := New(r.send, Options[int]{QueueSize: queue, MaxItems: 2})
	defer b.Close()

	type producer struct {
		cancel context.CancelFunc
		err    chan error
	}
	start := func(i int) producer {
		ctx, cancel := context.WithCancel(t.Context())
		p := producer{cancel, make(chan error, 1)}
		go func() { p.err <- b.Submit(ctx, i) }()
		return p
	}
	inFlight := start(0)
	<-r.entered
	var queued []producer
	for i := 1; i <= queue; i++ {
		queued = append(queued, start(i))
	}
	waitQueued(t, b, queue)
	blocked := start(99) // no room: waits for a slot
	for range 100 {
		runtime.Gosched()
	}
	select {
	case err := <-blocked.err:
		t.Fatalf("Submit on a full queue returned %v", err)
	default:
	}
	if n := b.queued(); n != queue {
		t.Fatalf("%d queued, bound is %d", n, queue)
	}

	blocked.cancel()
	if err := <-blocked.err; !errors.Is(err, context.Canceled) || errors.Is(err, ErrInFlight) {
		t.Errorf("blocked producer: %v, want context.Canceled", err)
	}
	queued[1].cancel() // item 2: queued, removed unsent
	if err := <-queued[1].err; !errors.Is(err, context.Canceled) || errors.Is(err, ErrInFlight) {
		t.Errorf("queued producer: %v, want context.Canceled", err)
	}
	if n := b.queued(); n != queue-1 {
		t.Errorf("%d queued after a cancellation, want %d", n, queue-1)
	}
	// The in-flight item's submitter gives up: it learns the item may be
	// delivered, and the stalled send, abandoned by all, is canceled.
	inFlight.cancel()
	if err := <-inFlight.err; !errors.Is(err, ErrInFlight) || !errors.Is(err, context.Canceled) {
		t.Errorf("in-flight producer: %v, want ErrInFlight and context.Canceled", err)
	}
	<-r.entered // the next send started: the stalled one gave up
	// Cancel every other producer; each leaves with a context error.
	for i, p := range queued {
		if i != 1 {
			p.cancel()
			if err := <-p.err; !errors.Is(err, context.Canceled) {
				t.Errorf("producer %d: %v", i+1, err)
			}
		}
	}
	for _, batch := range r.sent() {
		if slices.Contains(batch, 2) || slices.Contains(batch, 99) {
			t.Errorf("a withdrawn item was sent: %v", batch)
		}
	}
}

// TestClose closes with items queued behind a send in flight: Close waits
// for them to be sent, and a later Submit fails with ErrClosed.
func TestClose(t *testing.T) {
	r := recorder[int]{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	b := New(r.send, Options[int]{})
	var wg sync.WaitGroup
	errs := make([]error, 6)
	wg.Go(func() { errs[0] = b.Submit(t.Context(), 0) })
	<-r.entered
	for i := 1; i < 6; i++ {
		wg.Go(func() { errs[i] = b.Submit(t.Context(), i) })
	}
	waitQueued(t, b, 5)
	closed := make(chan struct{})
	go func() { b.Close(); close(closed) }()
	for !b.isClosed() {
		runtime.Gosched()
	}
	if err := b.Submit(t.Context(), 7); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit while closing: %v, want ErrClosed", err)
	}
	select {
	case <-closed:
		t.Fatal("Close returned before the queue was sent")
	default:
	}
	close(r.gate)
	<-closed
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := r.sent(); len(got) != 2 || len(got[1]) != 5 {
		t.Fatalf("batches %v", got)
	}
	if err := b.Submit(t.Context(), 8); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close: %v, want ErrClosed", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func (b *Sender[T]) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// TestCloseFreesBlocked checks that a Submit waiting for room in a full
// queue fails with ErrClosed when the Sender closes.
func TestCloseFreesBlocked(t *testing.T) {
	r := recorder[int]{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	b := New(r.send, Options[int]{QueueSize: 1})
	first := make(chan error, 1)
	go func() { first <- b.Submit(t.Context(), 0) }()
	<-r.entered
	second := make(chan error, 1)
	go func() { second <- b.Submit(t.Context(), 1) }()
	waitQueued(t, b, 1)
	third := make(chan error, 1)
	go func() { third <- b.Submit(t.Context(), 2) }()
	go b.Close()
	if err := <-third; !errors.Is(err, ErrClosed) {
		t.Errorf("blocked Submit: %v, want ErrClosed", err)
	}
	close(r.gate)
	if err := errors.Join(<-first, <-second); err != nil {
		t.Error(err)
	}
	b.Close()
}

func TestSubmitErrors(t *testing.T) {
	var r recorder[string]
	b := New(r.send, Options[string]{MaxBytes: 4, Size: func(s string) int { return len(s) }})
	defer b.Close()
	if err := b.Submit(t.Context(), "12345"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized item: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.Submit(ctx, "1"); !errors.Is(err, context.Canceled) {
		t.Errorf("done context: %v", err)
	}
	if len(r.sent()) != 0 {
		t.Errorf("sent %v", r.sent())
	}
}

func TestOptionsPanic(t *testing.T) {
	send := func(context.Context, []int) error { return nil }
	for _, o := range []Options[int]{{MaxItems: -1}, {QueueSize: -1}, {MaxBytes: -1}, {MaxBytes: 10}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: no panic", o)
				}
			}()
			New(send, o)
		}()
	}
}

// TestCancelStress has producers abandon items at random moments while
// sends are slow, and checks every answer against what was sent: nil means
// sent once, a bare context error means never sent, ErrInFlight means sent
// at most once.
func TestCancelStress(t *testing.T) {
	type item struct{ producer, seq int }
	slow := func(ctx context.Context, items []item) error {
		for range 50 * len(items) {
			runtime.Gosched()
		}
		return ctx.Err()
	}
	var r recorder[item]
	b := New(func(ctx context.Context, items []item) error {
		r.send(ctx, items)
		return slow(ctx, items)
	}, Options[item]{QueueSize: 8, MaxItems: 4})
	const producers, each = 16, 100
	answers := make([][]error, producers)
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for s := range each {
				ctx, cancel := context.WithCancel(t.Context())
				if s%3 != 0 {
					go func() {
						for range s % 7 {
							runtime.Gosched()
						}
						cancel()
					}()
				}
				answers[p] = append(answers[p], b.Submit(ctx, item{p, s}))
				cancel()
			}
		})
	}
	wg.Wait()
	b.Close()
	sent := map[item]int{}
	for _, batch := range r.sent() {
		for _, it := range batch {
			sent[it]++
		}
	}
	for p, errs := range answers {
		for s, err := range errs {
			n := sent[item{p, s}]
			switch {
			case n > 1:
				t.Fatalf("item %d/%d sent %d times", p, s, n)
			case err == nil && n != 1:
				t.Fatalf("item %d/%d: nil, but sent %d times", p, s, n)
			case errors.Is(err, ErrInFlight) && n != 1:
				t.Fatalf("item %d/%d: in flight, but sent %d times", p, s, n)
			case err != nil && !errors.Is(err, ErrInFlight) && errors.Is(err, context.Canceled) && n != 0:
				t.Fatalf("item %d/%d: %v, but sent", p, s, err)
			}
		}
	}
}

// TestAbandonedSubmitsLeaveNothing: Submits that give up while their item
// is queued leave no empty group behind, however many there are, so the
// queue stays within QueueSize groups while a send is stalled.
func TestAbandonedSubmitsLeaveNothing(t *testing.T) {
	r := recorder[int]{gate: make(chan struct{}), entered: make(chan struct{}, 16)}
	const queue = 4
	b := New(r.send, Options[int]{QueueSize: queue, MaxItems: 1})
	defer b.Close()
	var release sync.Once
	defer release.Do(func() { close(r.gate) }) // before Close, which waits for the send
	first := make(chan error, 1)
	go func() { first <- b.Submit(t.Context(), 0) }()
	<-r.entered // the send of item 0 is stalled
	submit := func(i int) (context.CancelFunc, chan error) {
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { errc <- b.Submit(ctx, i) }()
		return cancel, errc
	}
	groups := func() int {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue)
	}
	// Two at a time, so that each pair opens a group behind the other's.
	for i := 1; i <= 5000; i += 2 {
		c1, e1 := submit(i)
		c2, e2 := submit(i + 1)
		waitQueued(t, b, 2)
		c1()
		c2()
		for _, e := range []chan error{e1, e2} {
			if err := <-e; !errors.Is(err, context.Canceled) {
				t.Fatalf("abandoned Submit: %v", err)
			}
		}
		if n := groups(); n > queue {
			t.Fatalf("after %d abandoned Submits the queue holds %d groups, more than QueueSize %d", i+1, n, queue)
		}
	}
	if n := groups(); n != 0 {
		t.Fatalf("%d empty groups left in the queue", n)
	}
	release.Do(func() { close(r.gate) })
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := b.Submit(t.Context(), -1); err != nil {
		t.Fatal(err)
	}
	for _, batch := range r.sent() {
		if len(batch) != 1 || batch[0] > 0 {
			t.Errorf("sent %v: only items 0 and -1 were never abandoned", batch)
		}
	}
}
