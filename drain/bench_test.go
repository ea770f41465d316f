package drain_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/fanseal/fanseal/drain"
	"github.com/fanseal/fanseal/internal/frame"
)

// BenchmarkSendTCP sends 200-byte items from 64 producers over one
// loopback TCP connection to a receiver that decodes every item of a frame
// and then acknowledges the frame. mode=per-item is the baseline, one
// frame per item, each producer waiting its turn on the connection;
// mode=batched drains the queue into each frame. The target is batched ≥ 3×
// the throughput (ns/op is per item).
func BenchmarkSendTCP(b *testing.B) {
	const producers, size = 64, 200
	for _, mode := range []string{"per-item", "batched"} {
		b.Run(fmt.Sprintf("producers=%d/size=%d/mode=%s", producers, size, mode), func(b *testing.B) {
			received := 0
			conn, stop, err := frame.Loopback(func([]byte) { received++ })
			if err != nil {
				b.Fatal(err)
			}
			client := frame.NewClient(conn)
			bt := drain.New(client.Send, drain.Options[[]byte]{})
			submit := bt.Submit
			if mode == "per-item" {
				submit = func(ctx context.Context, it []byte) error { return client.Send(ctx, [][]byte{it}) }
			}
			b.SetParallelism((producers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				item := make([]byte, size)
				for pb.Next() {
					if err := submit(context.Background(), item); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
			bt.Close()
			if err := stop(); err != nil {
				b.Fatal(err)
			}
			if received != b.N {
				b.Fatalf("%d items received, %d sent", received, b.N)
			}
		})
	}
}
