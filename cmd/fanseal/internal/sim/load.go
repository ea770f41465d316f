package sim

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// Load is what a side was offered and what it took. A closed loop admits
// every operation it starts. An open loop offers an operation every
// 1/rate seconds and admits it only while fewer than Bound are in flight;
// one due while Bound are in flight is shed: refused at once, never
// started, and counted here. Every admitted operation runs to its end, so
// a queue never holds more than Bound operations and memory stays bounded
// however far the offered rate exceeds what the side can do.
type Load struct {
	// Offered counts operations due (open loop) or started (closed loop).
	Offered int64 `json:"offered"`
	// Admitted counts operations started; Completed those that returned
	// without error; Shed those refused at admission.
	Admitted  int64 `json:"admitted"`
	Completed int64 `json:"completed"`
	Shed      int64 `json:"shed"`
	// Bound is the most operations in flight at once; MaxInFlight the
	// most seen.
	Bound       int   `json:"bound"`
	MaxInFlight int64 `json:"max_in_flight"`
}

func (l *Load) add(o Load) {
	l.Offered += o.Offered
	l.Admitted += o.Admitted
	l.Completed += o.Completed
	l.Shed += o.Shed
	l.Bound = max(l.Bound, o.Bound)
	l.MaxInFlight = max(l.MaxInFlight, o.MaxInFlight)
}

// DefaultOpenBound is an open loop's admission bound when
// Config.Concurrency is 0.
const DefaultOpenBound = 64

// drive calls op until d has passed: from conc goroutines back to back
// (closed loop), or, with rate > 0, one offered every 1/rate seconds
// whatever the latency (open loop), admitted while fewer than bound are in
// flight and shed otherwise. op gets the time it was due to start, from
// which latencies count. drive returns once every admitted op has
// returned, with the first error.
func drive(ctx context.Context, d time.Duration, conc int, rate float64, bound int, op func(ctx context.Context, due time.Time) error) (Load, error) {
	g, ctx := errgroup.WithContext(ctx)
	start := time.Now()
	deadline := start.Add(d)
	var (
		mu       sync.Mutex
		load     Load
		inFlight atomic.Int64
	)
	run := func(due time.Time) error {
		n := inFlight.Add(1)
		mu.Lock()
		load.MaxInFlight = max(load.MaxInFlight, n)
		mu.Unlock()
		defer inFlight.Add(-1)
		if err := op(ctx, due); err != nil {
			return err
		}
		mu.Lock()
		load.Completed++
		mu.Unlock()
		return nil
	}
	if rate <= 0 {
		conc = max(1, conc)
		load.Bound = conc
		var started atomic.Int64
		for range conc {
			g.Go(func() error {
				for time.Now().Before(deadline) && ctx.Err() == nil {
					started.Add(1)
					if err := run(time.Now()); err != nil {
						return err
					}
				}
				return nil
			})
		}
		err := g.Wait()
		load.Offered, load.Admitted = started.Load(), started.Load()
		return load, err
	}
	if bound <= 0 {
		bound = DefaultOpenBound
	}
	load.Bound = bound
	// The admission bound is the errgroup's limit: TryGo refuses, at once,
	// an operation due while bound are in flight.
	g.SetLimit(bound)
	interval := time.Duration(float64(time.Second) / rate)
	for due := start; due.Before(deadline) && ctx.Err() == nil; due = due.Add(interval) {
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		load.Offered++
		if g.TryGo(func() error { return run(due) }) {
			load.Admitted++
		} else {
			load.Shed++
		}
	}
	err := g.Wait()
	return load, err
}
