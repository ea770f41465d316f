package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
	"github.com/fanseal/fanseal/drain"
	"github.com/fanseal/fanseal/internal/frame"
)

// drainLegend defines the terms of the drain table.
const drainLegend = "legend: per-item: each producer sends its own frame and waits for its acknowledgement; batched: a drain.Sender sends " +
	"what queued while a frame was in flight as one frame; items/s: throughput; p50/p99: latency of one Submit; speedup: items/s over per-item's"

// benchDrain sends 200-byte items from 64 producers over loopback TCP, one
// frame per item and in drained batches, and reports throughput and the
// latency of each Submit.
func benchDrain(cfg config, w io.Writer) ([]Latency, error) {
	const producers, size = 64, 200
	budget := max(4*cfg.budget, 50*time.Millisecond)
	fmt.Fprintf(w, "\nsend %d-byte items from %d producers over loopback TCP, acknowledged per frame\n%s\n%-10s %12s %12s %12s %9s\n",
		size, producers, drainLegend, "mode", "items/s", "p50", "p99", "speedup")
	var out []Latency
	var base float64
	for _, mode := range []string{"per-item", "batched"} {
		conn, stop, err := frame.Loopback(func([]byte) {})
		if err != nil {
			return nil, err
		}
		client := frame.NewClient(conn)
		b := drain.New(client.Send, drain.Options[[]byte]{})
		submit := b.Submit
		if mode == "per-item" { // each producer waits its turn on the connection
			submit = func(ctx context.Context, it []byte) error { return client.Send(ctx, [][]byte{it}) }
		}
		rate, d, err := throughput(budget, producers, size, submit)
		b.Close()
		if serr := stop(); err == nil {
			err = serr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mode, err)
		}
		c := cell(d)
		c.Case, c.Recipients, c.PerSecond = mode, producers, rate
		cfg.add(&out, c)
		if base == 0 {
			base = rate
		}
		fmt.Fprintf(w, "%-10s %12.0f %12s %12s %8.1fx\n", mode, rate, report.Time(c.P50), report.Time(c.P99), rate/base)
	}
	return out, nil
}

// throughput runs producers goroutines that submit items of size bytes
// until budget has passed, and returns items per second and the latency
// of every Submit.
func throughput(budget time.Duration, producers, size int, submit func(context.Context, []byte) error) (float64, []float64, error) {
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	lat := make([][]float64, producers)
	start := time.Now()
	for p := range producers {
		wg.Go(func() {
			item := make([]byte, size)
			for failed.Load() == nil {
				t := time.Now()
				if t.Sub(start) > budget {
					return
				}
				if err := submit(context.Background(), item); err != nil {
					failed.Store(&err)
					return
				}
				lat[p] = append(lat[p], float64(time.Since(t).Nanoseconds()))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := failed.Load(); err != nil {
		return 0, nil, *err
	}
	all := slices.Concat(lat...)
	return float64(len(all)) / elapsed.Seconds(), all, nil
}
