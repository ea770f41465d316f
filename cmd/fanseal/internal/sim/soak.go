package sim

import (
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Soak is what a soak run (Config.Soak) sampled and concluded. A soak runs
// one side for the whole duration, in one round, and samples the process
// every Interval. After a warm-up (the first tenth of the run) it checks
// that nothing grows and nothing is lost (the warm-up lasts longer where
// the workload fills its working set later: the synchronizer's active
// contracts grow for its first 2000 transactions, each participant's
// SessionCache until it holds its 10 000 entries, and its commitments
// until every stakeholder group has turned up):
//
//   - the live heap's high-water mark over the last half is at most
//     SoakHeapGrowth times that of the first half (the live heap is what
//     the last garbage collection found reachable: what the process
//     keeps, without the garbage that comes and goes with each cycle);
//   - goroutines and open file descriptors return to their counts before
//     the run once it has closed everything (open files where the system
//     counts them: elsewhere that criterion is reported as not measured,
//     never as met);
//   - the p99 latency of Series in the last full window is at most
//     SoakP99Growth times that of the first full window;
//   - and the workload's own checks hold (no verdict or entry lost).
type Soak struct {
	Interval time.Duration `json:"interval_ns"`
	Warmup   time.Duration `json:"warmup_ns"`
	Window   time.Duration `json:"window_ns"`
	// Series is the latency series whose windows are compared.
	Series  string       `json:"series"`
	Samples []SoakSample `json:"samples"`
	// HeapFirstHalf and HeapLastHalf are the high-water marks of the heap
	// after warm-up, in each half of the rest of the run.
	HeapFirstHalf uint64 `json:"heap_first_half_bytes"`
	HeapLastHalf  uint64 `json:"heap_last_half_bytes"`
	// P99First and P99Last are the p99 of Series in the first full window
	// after warm-up and in the last full window, in nanoseconds.
	P99First float64 `json:"p99_first_ns"`
	P99Last  float64 `json:"p99_last_ns"`
	// Goroutines and open file descriptors before the run and after it
	// closed everything; descriptors are -1 where the system does not
	// count them.
	GoroutinesBefore int `json:"goroutines_before"`
	GoroutinesAfter  int `json:"goroutines_after"`
	FDsBefore        int `json:"fds_before"`
	FDsAfter         int `json:"fds_after"`
}

// A SoakSample is the state of the process at one moment of a soak.
type SoakSample struct {
	At time.Duration `json:"at_ns"`
	// Heap is the live heap's high-water mark since the previous sample:
	// the most bytes of reachable objects that a collection found, at the
	// sample (the sampler collects garbage first) and at every collection
	// of the runtime's own in between, read every soakPeek. A process's
	// live heap swings with the work in flight (a commitment exchange's
	// snapshots, say), so one reading a second would catch the swings by
	// chance, and a short soak's halves would differ by luck. HeapObjects
	// is the heap's objects just before the sample's collection, garbage
	// included, which swings with every cycle.
	Heap        uint64 `json:"heap_bytes"`
	HeapObjects uint64 `json:"heap_objects_bytes"`
	Goroutines  int    `json:"goroutines"`
	FDs         int    `json:"fds"`
	// Completed counts the operations done so far.
	Completed int64 `json:"completed"`
}

// fdsCheck is the name of the soak's open-files criterion.
const fdsCheck = "soak: open files return to their count before the run"

// The soak's pass criteria.
const (
	SoakHeapGrowth = 1.1
	SoakP99Growth  = 1.5
)

// warmup returns when a soak's warm-up ends: after least (a tenth of the
// run), and not before the first sample that counts steady operations
// done (the side's working set filled).
func warmup(samples []SoakSample, least time.Duration, steady int64) time.Duration {
	for _, x := range samples {
		if x.Completed >= steady {
			return max(least, x.At)
		}
	}
	if len(samples) > 0 {
		return samples[len(samples)-1].At // never steady: nothing after warm-up to judge
	}
	return least
}

// soakWindow returns the window a soak of d compares latencies over: a
// minute, or a tenth of a run shorter than ten minutes.
func soakWindow(d time.Duration) time.Duration {
	return min(time.Minute, max(time.Second, d/10))
}

// openFDs returns the number of the process's open file descriptors, or
// -1 where the system does not say. A variable, so that a test can stand
// in for a system without /proc.
var openFDs = procFDs

// procFDs counts the entries of /proc/self/fd, or returns -1 where it
// cannot be read.
func procFDs() int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(es) - 1 // the directory being read is one of them
}

// A soakSampler samples the process every interval until stopped, and
// reads the live heap every soakPeek in between.
type soakSampler struct {
	start     time.Time
	interval  time.Duration
	completed func() int64
	done      chan struct{}
	wg        sync.WaitGroup
	mu        sync.Mutex
	samples   []SoakSample
	peak      uint64 // the live heap's high-water mark since the last sample
}

// soakPeek is how often a soak reads the live heap that the runtime's own
// collections found. A reading is one atomic load of the runtime's
// metrics, without a collection.
const soakPeek = 50 * time.Millisecond

func startSoakSampler(start time.Time, interval time.Duration, completed func() int64) *soakSampler {
	s := &soakSampler{start: start, interval: interval, completed: completed, done: make(chan struct{})}
	s.wg.Go(func() {
		t, peek := time.NewTicker(interval), time.NewTicker(min(soakPeek, interval))
		defer t.Stop()
		defer peek.Stop()
		s.sample()
		for {
			select {
			case <-s.done:
				return
			case <-peek.C:
				s.peek()
			case <-t.C:
				s.sample()
			}
		}
	})
	return s
}

// liveHeapMetric is the live heap as of the last garbage collection.
const liveHeapMetric = "/gc/heap/live:bytes"

// readUint64 returns the value of a runtime metric, or 0 where the
// runtime does not have it.
func readUint64(name string) uint64 {
	m := []metrics.Sample{{Name: name}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m[0].Value.Uint64()
}

// peek raises the live heap's high-water mark to what the last collection
// found.
func (s *soakSampler) peek() {
	v := readUint64(liveHeapMetric)
	s.mu.Lock()
	s.peak = max(s.peak, v)
	s.mu.Unlock()
}

func (s *soakSampler) sample() {
	// A collection first, so that the live heap is what is reachable now,
	// not at a collection some seconds ago with what was allocated during
	// it: the curve then shows what the process keeps. It costs a
	// collection a second.
	objects := readUint64(heapMetric)
	runtime.GC()
	live := readUint64(liveHeapMetric)
	x := SoakSample{At: time.Since(s.start), HeapObjects: objects, Goroutines: runtime.NumGoroutine(), FDs: openFDs(), Completed: s.completed()}
	s.mu.Lock()
	x.Heap, s.peak = max(live, s.peak), 0
	s.samples = append(s.samples, x)
	s.mu.Unlock()
}

// stop takes a last sample, ends sampling and returns the samples.
func (s *soakSampler) stop() []SoakSample {
	close(s.done)
	s.wg.Wait()
	s.sample()
	return s.samples
}

// conclude fills in the soak's high-water marks and windowed p99 from its
// samples and the latency series l, and adds its checks to r.
func (k *Soak) conclude(l *Latency, r *SideResult) {
	rest := k.Samples[:0:0]
	for _, x := range k.Samples {
		if x.At >= k.Warmup {
			rest = append(rest, x)
		}
	}
	if len(rest) >= 2 {
		mid := rest[0].At + (rest[len(rest)-1].At-rest[0].At)/2
		for _, x := range rest {
			if x.At < mid {
				k.HeapFirstHalf = max(k.HeapFirstHalf, x.Heap)
			} else {
				k.HeapLastHalf = max(k.HeapLastHalf, x.Heap)
			}
		}
	}
	var full []Window
	if l != nil {
		for _, w := range l.Windows {
			if w.Start >= k.Warmup && !w.Partial {
				full = append(full, w)
			}
		}
	}
	if len(full) >= 2 {
		k.P99First, k.P99Last = full[0].P99, full[len(full)-1].P99
	}
	r.check("soak: the heap does not grow", k.HeapFirstHalf > 0 && float64(k.HeapLastHalf) <= SoakHeapGrowth*float64(k.HeapFirstHalf),
		"high-water mark %s in the first half after warm-up, %s in the last (at most %.1f×)", mib(float64(k.HeapFirstHalf)), mib(float64(k.HeapLastHalf)), SoakHeapGrowth)
	r.check("soak: goroutines return to their count before the run", k.GoroutinesAfter <= k.GoroutinesBefore,
		"%d before, %d after", k.GoroutinesBefore, k.GoroutinesAfter)
	if k.FDsBefore < 0 || k.FDsAfter < 0 {
		r.notMeasured(fdsCheck, "not measured: this system does not count the process's open files (no /proc/self/fd)")
	} else {
		r.check(fdsCheck, k.FDsAfter <= k.FDsBefore, "%d before, %d after", k.FDsBefore, k.FDsAfter)
	}
	r.check("soak: p99 latency holds", len(full) >= 2 && k.P99Last <= SoakP99Growth*k.P99First,
		"%s p99 %s in the first full %v window after warm-up, %s in the last of %d (at most %.1f×)",
		k.Series, formatNs(k.P99First), k.Window, formatNs(k.P99Last), len(full), SoakP99Growth)
}

// formatNs formats nanoseconds as a duration.
func formatNs(ns float64) string { return time.Duration(ns).Round(time.Microsecond).String() }
