package sim

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestDriveSheds offers an open loop far more than it can take: every
// operation blocks until released. At most bound are ever in flight, the
// rest is shed and counted, and every admitted operation completes.
func TestDriveSheds(t *testing.T) {
	const bound = 4
	release := make(chan struct{})
	var inFlight, most atomic.Int64
	go func() {
		time.Sleep(150 * time.Millisecond)
		close(release)
	}()
	load, err := drive(context.Background(), 200*time.Millisecond, 0, 1000, bound, func(ctx context.Context, _ time.Time) error {
		n := inFlight.Add(1)
		for old := most.Load(); n > old && !most.CompareAndSwap(old, n); old = most.Load() {
		}
		<-release
		inFlight.Add(-1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if most.Load() > bound || load.MaxInFlight > bound || load.Bound != bound {
		t.Fatalf("%d in flight at once (drive says %d), bound %d", most.Load(), load.MaxInFlight, bound)
	}
	if load.Offered < 150 || load.Shed < load.Offered/2 || load.Admitted+load.Shed != load.Offered || load.Completed != load.Admitted {
		t.Fatalf("%+v", load)
	}
}

// TestDriveClosedLoop: a closed loop admits what it starts, conc at a
// time.
func TestDriveClosedLoop(t *testing.T) {
	var inFlight, most atomic.Int64
	load, err := drive(context.Background(), 50*time.Millisecond, 3, 0, 0, func(ctx context.Context, _ time.Time) error {
		n := inFlight.Add(1)
		for old := most.Load(); n > old && !most.CompareAndSwap(old, n); old = most.Load() {
		}
		time.Sleep(time.Millisecond)
		inFlight.Add(-1)
		return nil
	})
	if err != nil || load.Shed != 0 || load.Offered != load.Admitted || load.Completed != load.Admitted || load.Admitted < 3 || most.Load() > 3 || load.Bound != 3 {
		t.Fatalf("%+v, %d in flight at most, %v", load, most.Load(), err)
	}
}
