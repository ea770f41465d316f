package sim

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// soakOf returns a soak of samples with the given live heaps, one a
// second, and a series whose windows have the given p99s.
func soakOf(heaps []uint64, p99s []float64) (*Soak, *Latency) {
	k := &Soak{Interval: time.Second, Warmup: 2 * time.Second, Window: time.Second, Series: "x", GoroutinesBefore: 3, GoroutinesAfter: 3, FDsBefore: 5, FDsAfter: 5}
	for i, h := range heaps {
		k.Samples = append(k.Samples, SoakSample{At: time.Duration(i) * time.Second, Heap: h})
	}
	l := &Latency{Name: "x"}
	for i, p := range p99s {
		l.Windows = append(l.Windows, Window{Start: time.Duration(i) * time.Second, Count: 100, P99: p})
	}
	return k, l
}

func failed(r *SideResult) []string {
	var out []string
	for _, c := range r.Checks {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	return out
}

// TestSoakCriteria checks the soak's verdicts on made-up samples: steady
// passes; a heap that grows, a goroutine or a descriptor left behind, a
// p99 that rises each fail their own check, and the warm-up is ignored.
func TestSoakCriteria(t *testing.T) {
	steady := []uint64{1, 50, 100, 104, 100, 98, 103, 101, 99, 102}
	flat := []float64{9e6, 9e6, 5e6, 6e6, 5e6, 6e6, 5e6, 6e6, 5e6, 6e6}
	for _, c := range []struct {
		name  string
		heaps []uint64
		p99s  []float64
		edit  func(*Soak)
		fail  []string
	}{
		{"steady", steady, flat, nil, nil},
		{"heap grows", []uint64{1, 50, 100, 102, 104, 106, 110, 115, 118, 120}, flat, nil, []string{"the heap does not grow"}},
		{"goroutine left", steady, flat, func(k *Soak) { k.GoroutinesAfter++ }, []string{"goroutines return"}},
		{"descriptor left", steady, flat, func(k *Soak) { k.FDsAfter++ }, []string{"open files return"}},
		{"p99 rises", steady, []float64{1e6, 1e6, 5e6, 5e6, 6e6, 6e6, 7e6, 7e6, 8e6, 8e6}, nil, []string{"p99 latency holds"}},
		{"too short to judge", steady[:3], flat[:3], nil, []string{"the heap does not grow", "p99 latency holds"}},
	} {
		k, l := soakOf(c.heaps, c.p99s)
		if c.edit != nil {
			c.edit(k)
		}
		var r SideResult
		k.conclude(l, &r)
		got := failed(&r)
		ok := len(got) == len(c.fail)
		for i := range c.fail {
			ok = ok && strings.Contains(got[i], c.fail[i])
		}
		if !ok {
			t.Errorf("%s: failed %v, want %q", c.name, got, c.fail)
		}
	}
}

// TestWarmup: the warm-up lasts a tenth of the run, or until the working
// set is full, whichever is later.
func TestWarmup(t *testing.T) {
	var samples []SoakSample
	for i := range 10 {
		samples = append(samples, SoakSample{At: time.Duration(i) * time.Second, Completed: int64(100 * i)})
	}
	for _, c := range []struct {
		least  time.Duration
		steady int64
		want   time.Duration
	}{{time.Second, 0, time.Second}, {time.Second, 450, 5 * time.Second}, {7 * time.Second, 450, 7 * time.Second}, {time.Second, 5000, 9 * time.Second}} {
		if got := warmup(samples, c.least, c.steady); got != c.want {
			t.Errorf("warmup(%v, %d) = %v, want %v", c.least, c.steady, got, c.want)
		}
	}
}

// TestSoakRun soaks a small ledger: samples every second, windows, and
// every check made.
func TestSoakRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak of a few seconds")
	}
	cfg := Config{Duration: 4 * time.Second, Seed: 5, Soak: true}
	res, err := Run(context.Background(), Ledger(LedgerOptions{Workers: 1}), cfg)
	if res == nil {
		t.Fatal(err)
	}
	s := res.Sides[0]
	if len(res.Sides) != 1 || s.Side != "fanseal" || s.Soak == nil || len(s.Soak.Samples) < 4 || s.Soak.Series != "commit" {
		t.Fatalf("sides %v, soak %+v", len(res.Sides), s.Soak)
	}
	names := map[string]bool{}
	for _, c := range s.Checks {
		names[c.Name] = true
	}
	for _, want := range []string{"soak: the heap does not grow", "soak: goroutines return to their count before the run", "soak: open files return to their count before the run", "soak: p99 latency holds"} {
		if !names[want] {
			t.Errorf("no check %q", want)
		}
	}
	if l := s.LatencyOf("commit"); l == nil || len(l.Windows) < 3 {
		t.Fatalf("commit windows: %+v", l)
	}
}

// TestReservoir: past maxSamples a series keeps a uniform sample of all it
// saw, not its beginning.
func TestReservoir(t *testing.T) {
	var r recorder
	r.declare("a", "")
	n := 4 * maxSamples
	for i := range n {
		r.add("a", time.Duration(i))
	}
	l := r.sorted()[0]
	if len(l.Samples) != maxSamples || l.Count != int64(n) {
		t.Fatalf("%d kept of %d", len(l.Samples), l.Count)
	}
	// The median of a uniform sample of 0..n-1 is near n/2; the first
	// maxSamples would give maxSamples/2.
	if med := l.Percentile(50); med < 0.45*float64(n) || med > 0.55*float64(n) {
		t.Fatalf("median %v of 0..%d", med, n-1)
	}
}

// TestSoakPeakBetweenSamples: a sample's heap is the live heap's
// high-water mark since the sample before, so a peak that a collection
// found between two samples, gone by the second, is in it; and the sample
// after that, with no such peak, is not.
func TestSoakPeakBetweenSamples(t *testing.T) {
	const big = 64 << 20
	s := startSoakSampler(time.Now(), time.Second, func() int64 { return 0 })
	keep := make([]byte, big)
	runtime.GC()
	time.Sleep(3 * soakPeek)
	runtime.KeepAlive(keep)
	keep = nil
	runtime.GC()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(soakPeek) {
		s.mu.Lock()
		n := len(s.samples)
		s.mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
	}
	samples := s.stop()
	if len(samples) < 3 {
		t.Fatalf("%d samples", len(samples))
	}
	if samples[1].Heap < big {
		t.Fatalf("second sample's heap %d, want the peak of at least %d found between the samples", samples[1].Heap, big)
	}
	if last := samples[len(samples)-1].Heap; last >= big {
		t.Fatalf("last sample's heap %d: the peak was kept past its sample", last)
	}
}

// TestWindowedRoom: a soak's recorder holds the room of its bound from the
// start, so recording up to maxSamples allocates nothing and the heap the
// soak watches does not grow with the recorder.
func TestWindowedRoom(t *testing.T) {
	var r recorder
	r.declare("a", "")
	r.windowed(time.Now(), time.Hour)
	// AllocsPerRun runs it once before counting: maxSamples in all.
	if n := testing.AllocsPerRun(1, func() {
		for range maxSamples / 2 {
			r.add("a", time.Millisecond)
		}
	}); n != 0 {
		t.Fatalf("%v allocations to record %d samples", n, maxSamples/2)
	}
}

// TestSoakFilesNotMeasured: where the system does not count open files
// (openFDs returns -1 before and after), the open-files criterion is
// reported as not measured: not met, not failed, and said so in the
// report; measured counts are judged as before.
func TestSoakFilesNotMeasured(t *testing.T) {
	steady := []uint64{1, 50, 100, 104, 100, 98, 103, 101, 99, 102}
	flat := []float64{9e6, 9e6, 5e6, 6e6, 5e6, 6e6, 5e6, 6e6, 5e6, 6e6}
	for _, c := range []struct {
		before, after int
		measured, ok  bool
	}{{-1, -1, false, false}, {5, -1, false, false}, {-1, 5, false, false}, {5, 5, true, true}, {5, 6, true, false}} {
		k, l := soakOf(steady, flat)
		k.FDsBefore, k.FDsAfter = c.before, c.after
		r := &SideResult{Side: "fanseal"}
		k.conclude(l, r)
		var got *Check
		for i := range r.Checks {
			if r.Checks[i].Name == "soak: open files return to their count before the run" {
				got = &r.Checks[i]
			}
		}
		if got == nil {
			t.Fatalf("%d before, %d after: no open-files check in %+v", c.before, c.after, r.Checks)
		}
		if got.NotMeasured == c.measured || got.OK != c.ok {
			t.Errorf("%d before, %d after: check %+v, want measured %v, ok %v", c.before, c.after, *got, c.measured, c.ok)
		}
		failedFiles := false
		for _, f := range (&Result{Sides: []*SideResult{r}}).Failed() {
			failedFiles = failedFiles || strings.Contains(f, "open files")
		}
		if failedFiles != (c.measured && !c.ok) {
			t.Errorf("%d before, %d after: Failed lists the open-files check: %v", c.before, c.after, failedFiles)
		}
	}
}

// TestSoakRunWithoutProc soaks a small ledger with openFDs standing in for
// a system without /proc: the run passes its other checks and reports the
// open-files criterion as not measured, never as met.
func TestSoakRunWithoutProc(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak of a few seconds")
	}
	defer func(f func() int) { openFDs = f }(openFDs)
	openFDs = func() int { return -1 }
	res, err := Run(context.Background(), Ledger(LedgerOptions{Workers: 1}), Config{Duration: 2 * time.Second, Seed: 5, Soak: true})
	if res == nil {
		t.Fatal(err)
	}
	if err != nil && strings.Contains(err.Error(), "open files") {
		t.Fatalf("the run failed on the criterion it could not measure: %v", err)
	}
	var files *Check
	for i, c := range res.Sides[0].Checks {
		if c.Name == "soak: open files return to their count before the run" {
			files = &res.Sides[0].Checks[i]
		}
	}
	if files == nil || files.OK || !files.NotMeasured {
		t.Fatalf("open-files check %+v, want not measured", files)
	}
	var b strings.Builder
	Print(&b, res)
	if out := b.String(); !strings.Contains(out, "n/a  fanseal: soak: open files return to their count before the run (not measured") ||
		!strings.Contains(out, "open files not measured") || strings.Contains(out, "ok   fanseal: soak: open files") {
		t.Fatalf("report:\n%s", out)
	}
}
