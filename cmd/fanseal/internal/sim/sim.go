// Package sim runs fanseal's end-to-end workloads: a synchronizer's
// transactions, a confidential ledger's write sets and a threshold group's
// key exchange round, each wired together from the library the way a node
// would, and each run twice in one process: the "before" (Baseline, what
// the motivating systems did) and the "after" (Fanseal).
//
// Run interleaves the two sides in rounds (A B, then B A, ...) so that a
// change in the machine's load hits both, records latencies, counts what
// completed, and reads one CPU profile of the whole run to say which share
// of each side's CPU went to cryptography (see Attribution). With
// Config.Faults it injects bad input and a dropped connection, and reports
// what was injected, what was detected, and that nothing was lost.
//
// The workloads are benchmark workloads, not a node implementation: small
// and readable examples of how the library's pieces fit together.
package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// A Side is one of the two configurations a workload compares.
type Side int

const (
	// Baseline is the "before": what the motivating systems did.
	Baseline Side = iota
	// Fanseal is the "after": the same work with fanseal's hot paths.
	Fanseal
)

// Sides lists both sides, baseline first.
var Sides = []Side{Baseline, Fanseal}

// String returns "baseline" or "fanseal".
func (s Side) String() string {
	if s == Baseline {
		return "baseline"
	}
	return "fanseal"
}

// Config is what every workload shares.
type Config struct {
	// Duration is the measuring time of the whole run, both sides
	// together, from the first round on: each of the 2·Rounds slots gets
	// an equal share of the time left when it starts (a side's first slot
	// at least Duration/(2·Rounds)), so that a slot that overran shortens
	// the later ones. A workload whose operations are longer than a slot
	// runs fewer of them (at least one per side).
	Duration time.Duration
	// Rounds is the number of interleaved rounds (default 6).
	Rounds int
	// Rate, if positive, starts operations at this rate per second
	// whatever their latency (open loop); latencies count from when an
	// operation was due. Zero runs a closed loop at saturation.
	Rate float64
	// Concurrency is the number of operations in flight in a closed loop;
	// 0 selects the workload's default.
	Concurrency int
	// Seed makes the generated work reproducible: both sides get the same.
	Seed uint64
	// Faults injects bad input and failures (see each workload).
	Faults bool
	// Only, if set, runs just these sides (default: both).
	Only []Side
	// RateFactor, if positive, sets Rate to this multiple of the
	// capacity of the Fanseal side: the operations per second that a
	// closed loop of it completes, measured first on a world of its own
	// for a tenth of Duration (at least a second, at most ten).
	RateFactor float64
	// Soak runs one side (Fanseal, unless Only names the baseline) for the
	// whole Duration in one round, samples the process every second and
	// checks that nothing grows or is lost (see Soak).
	Soak bool
	// Progress, if set, is called about ten times a second with the
	// fraction of the run done.
	Progress func(done float64)
}

// A Workload is one of the end-to-end workloads: Synchronizer, Ledger or
// DKG.
type Workload interface {
	// Name returns the workload's command name.
	Name() string
	// Describe returns a one-line summary of the configuration.
	Describe() string
	newWorld(ctx context.Context, side Side, cfg *Config) (world, error)
	// rules are extra stack attributions the workload reports.
	rules() []Rule
	// liveBound is the most live heap a side's objects may hold, derived
	// from the workload's bounds; a run checks the side's peak heap
	// against heapCeiling of it, under overload too.
	liveBound(cfg *Config) uint64
}

// A world is one side's running system.
type world interface {
	// run works for d (then lets what is in flight finish). With d ≤ 0,
	// or d shorter than an operation it has timed before, it may return
	// without starting one.
	run(ctx context.Context, d time.Duration) error
	// finish ends the run and checks the invariants, once.
	finish(ctx context.Context) error
	// report fills in what the side measured and checked.
	report(*SideResult)
	// probe returns what a soak watches: the side's latency recorder,
	// the series it compares over time, the count of operations done so
	// far, and the count from which the side is in its steady state (its
	// working set filled: the synchronizer's active contracts, say).
	probe() (rec *recorder, series string, completed func() int64, steady int64)
	// close releases everything; it may follow a failed run.
	close()
}

// Result is what a run measured.
type Result struct {
	Workload    string         `json:"workload"`
	Description string         `json:"description"`
	Machine     report.Machine `json:"machine"`
	Config      RunConfig      `json:"config"`
	Sides       []*SideResult  `json:"sides"`
	// Profile says whether the CPU profile could be taken.
	Profile string `json:"profile"`
	// PeakHeap is the largest live heap seen during the run, in bytes.
	PeakHeap uint64 `json:"peak_heap_bytes"`
	// GoroutinesBefore and GoroutinesAfter count goroutines before the
	// run and after every world closed.
	GoroutinesBefore int           `json:"goroutines_before"`
	GoroutinesAfter  int           `json:"goroutines_after"`
	Elapsed          time.Duration `json:"elapsed_ns"`

	profile []byte // the raw CPU profile
}

// WriteProfile writes the run's CPU profile, in the format go tool pprof
// reads, to w. Without a profile it writes nothing.
func (r *Result) WriteProfile(w io.Writer) error {
	_, err := w.Write(r.profile)
	return err
}

// RunConfig is the Config as the report shows it.
type RunConfig struct {
	Duration    time.Duration `json:"duration_ns"`
	Rounds      int           `json:"rounds"`
	Rate        float64       `json:"rate,omitempty"`
	Concurrency int           `json:"concurrency,omitempty"`
	Seed        uint64        `json:"seed"`
	Faults      bool          `json:"faults"`
	// RateFactor and Capacity: with Config.RateFactor, the capacity the
	// calibration measured (operations per second) and Rate its multiple.
	RateFactor float64 `json:"rate_factor,omitempty"`
	Capacity   float64 `json:"capacity,omitempty"`
	Soak       bool    `json:"soak,omitempty"`
}

// SideResult is what one side measured.
type SideResult struct {
	Side string `json:"side"`
	// Ops counts completed operations (transactions, rounds).
	Ops int `json:"ops"`
	// Unit names an operation, as in "tx" or "round".
	Unit string `json:"unit"`
	// Busy is the time the side ran; Throughput is Ops per second of it.
	Busy       time.Duration `json:"busy_ns"`
	Throughput float64       `json:"throughput"`
	// Load is what the side was offered and took: admitted, shed,
	// completed (for the workloads that run a load loop).
	Load    *Load      `json:"load,omitempty"`
	Latency []*Latency `json:"latency"`
	// CPU is the side's share of the profile.
	CPU *CPU `json:"cpu,omitempty"`
	// PeakHeap is the largest live heap seen while this side ran.
	PeakHeap uint64 `json:"peak_heap_bytes"`
	// Soak is what a soak run sampled and concluded.
	Soak     *Soak     `json:"soak,omitempty"`
	Counters []Counter `json:"counters,omitempty"`
	Checks   []Check   `json:"checks"`
}

// A Counter is a named count: transactions, faults injected, errors seen.
type Counter struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// A Check is an invariant the run verified. A check the run could not
// measure (open files where the system does not count them) is
// NotMeasured: neither met (OK is false) nor failed.
type Check struct {
	Name        string `json:"name"`
	OK          bool   `json:"ok"`
	NotMeasured bool   `json:"not_measured,omitempty"`
	Detail      string `json:"detail,omitempty"`
}

// Counter returns the value of the named counter, or 0.
func (s *SideResult) Counter(name string) int64 {
	for _, c := range s.Counters {
		if c.Name == name {
			return c.Value
		}
	}
	return 0
}

// LatencyOf returns the named latency series, or nil.
func (s *SideResult) LatencyOf(name string) *Latency {
	for _, l := range s.Latency {
		if l.Name == name {
			return l
		}
	}
	return nil
}

func (s *SideResult) count(name string, v int64) {
	s.Counters = append(s.Counters, Counter{name, v})
}

func (s *SideResult) check(name string, ok bool, format string, args ...any) {
	s.Checks = append(s.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
}

// notMeasured records a check that the run could not measure, and why.
func (s *SideResult) notMeasured(name string, format string, args ...any) {
	s.Checks = append(s.Checks, Check{Name: name, NotMeasured: true, Detail: fmt.Sprintf(format, args...)})
}

// Side returns the result of side s, or nil if it did not run.
func (r *Result) Side(s Side) *SideResult {
	for _, x := range r.Sides {
		if x.Side == s.String() {
			return x
		}
	}
	return nil
}

// Failed returns the checks that failed, as "side: name: detail"; a check
// not measured did not fail (nor was it met).
func (r *Result) Failed() []string {
	var out []string
	for _, s := range r.Sides {
		for _, c := range s.Checks {
			if !c.OK && !c.NotMeasured {
				out = append(out, fmt.Sprintf("%s: %s: %s", s.Side, c.Name, c.Detail))
			}
		}
	}
	return out
}

// ErrCheck marks a run whose invariants failed; Run still returns the
// Result.
var ErrCheck = errors.New("sim: an invariant failed")

// Run runs w under cfg and returns what it measured. A check that failed
// makes the error wrap ErrCheck, with the Result still returned.
func Run(ctx context.Context, w Workload, cfg Config) (res *Result, err error) {
	if cfg.Rounds <= 0 {
		cfg.Rounds = 6
	}
	if cfg.Duration <= 0 {
		return nil, errors.New("sim: the duration must be positive")
	}
	sides := cfg.Only
	if len(sides) == 0 {
		sides = Sides
	}
	if cfg.Soak {
		// One side, in two back-to-back rounds (the ledger rekeys between
		// them): a soak measures a side against itself over time.
		switch {
		case len(cfg.Only) == 0:
			sides = []Side{Fanseal}
		case len(cfg.Only) > 1:
			return nil, errors.New("sim: a soak runs one side")
		}
		cfg.Rounds = 2
	}
	if cfg.RateFactor > 0 && cfg.Rate > 0 {
		return nil, errors.New("sim: a rate and a rate factor together")
	}
	start := time.Now()
	res = &Result{Workload: w.Name(), Description: w.Describe(), Machine: report.ThisMachine(start),
		Config: RunConfig{Duration: cfg.Duration, Rounds: cfg.Rounds, Concurrency: cfg.Concurrency, Seed: cfg.Seed, Faults: cfg.Faults,
			RateFactor: cfg.RateFactor, Soak: cfg.Soak},
		GoroutinesBefore: runtime.NumGoroutine()}
	fdsBefore := openFDs()
	if cfg.RateFactor > 0 {
		capacity, err := calibrate(ctx, w, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: measuring the capacity: %w", w.Name(), err)
		}
		cfg.Rate = cfg.RateFactor * capacity
		res.Config.Capacity = capacity
	}
	res.Config.Rate = cfg.Rate

	// The peak heap is the run's: collect what the process left before it
	// (a caller's garbage, a test's before it) so that the sampler, which
	// reads the heap's objects, dead ones not yet swept included, does not
	// count it.
	runtime.GC()
	heap := startHeapSampler()
	// A soak takes no CPU profile: the profiler's own memory grows with
	// the length of the run (its table of stacks, its output), which would
	// hide or fake the growth the soak looks for.
	var prof *profiler
	profErr := errSoakProfile
	if !cfg.Soak {
		prof, profErr = startProfile()
	}
	worlds := map[Side]world{}
	defer func() {
		for _, wd := range worlds {
			wd.close()
		}
		if prof != nil { // an early return: stop the profile
			prof.stop()
		}
		heap.stop()
	}()
	for _, s := range sides {
		var wd world
		var err error
		pprof.Do(ctx, pprof.Labels(sideLabel, s.String()), func(ctx context.Context) {
			wd, err = w.newWorld(ctx, s, &cfg)
		})
		if err != nil {
			return nil, fmt.Errorf("%s: setting up %s: %w", w.Name(), s, err)
		}
		worlds[s] = wd
	}

	// Each slot gets an equal share of the time left, so that a slot that
	// overran (a workload's operation can take longer than a slot) shortens
	// the ones after it and the run keeps to its duration; a side's first
	// slot gets at least its nominal share, so that every side runs.
	nominal := cfg.Duration / time.Duration(len(sides)*cfg.Rounds)
	stopProgress := reportProgress(cfg.Progress, time.Now(), cfg.Duration)
	var (
		soak   *soakSampler
		series string // the soak's series, and the count from which it is steady
		steady int64
	)
	if cfg.Soak {
		now := time.Now()
		var rec *recorder
		var completed func() int64
		rec, series, completed, steady = worlds[sides[0]].probe()
		rec.windowed(now, soakWindow(cfg.Duration))
		soak = startSoakSampler(now, soakInterval, completed)
		defer func() {
			if soak != nil {
				soak.stop()
			}
		}()
	}
	deadline := time.Now().Add(cfg.Duration)
	slotsLeft := cfg.Rounds * len(sides)
	busy := map[Side]time.Duration{}
	for r := range cfg.Rounds {
		order := slices.Clone(sides)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range order {
			slot := max(0, time.Until(deadline)/time.Duration(slotsLeft))
			if _, ran := busy[s]; !ran {
				slot = max(slot, nominal)
			}
			slotsLeft--
			heap.active.Store(int32(s))
			var err error
			t := time.Now()
			pprof.Do(ctx, pprof.Labels(sideLabel, s.String()), func(ctx context.Context) {
				err = worlds[s].run(ctx, slot)
			})
			busy[s] += time.Since(t)
			heap.active.Store(-1)
			if err != nil {
				stopProgress()
				return nil, fmt.Errorf("%s: %s: %w", w.Name(), s, err)
			}
		}
	}
	stopProgress()
	var soakSamples []SoakSample
	if soak != nil {
		soakSamples = soak.stop()
		soak = nil
	}

	for _, s := range sides {
		var err error
		pprof.Do(ctx, pprof.Labels(sideLabel, s.String(), phaseLabel, "finish"), func(ctx context.Context) {
			err = worlds[s].finish(ctx)
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", w.Name(), s, err)
		}
	}
	var profile *cpuProfile
	if prof != nil {
		profile, profErr = prof.stop()
		res.profile = prof.buf.Bytes()
		prof = nil
	}
	res.Profile = "ok"
	if profErr != nil {
		res.Profile = "unavailable: " + profErr.Error()
	}
	ceiling := heapCeiling(w.liveBound(&cfg))
	for _, s := range sides {
		sr := &SideResult{Side: s.String(), Busy: busy[s], PeakHeap: heap.peak[s].Load()}
		worlds[s].report(sr)
		sr.check("peak heap under the ceiling", sr.PeakHeap <= ceiling, "peak %s, ceiling %s", mib(float64(sr.PeakHeap)), mib(float64(ceiling)))
		if l := sr.Load; l != nil {
			sr.check("every admitted operation completed", l.Completed == l.Admitted && l.Admitted+l.Shed == l.Offered && l.MaxInFlight <= int64(l.Bound),
				"offered %d, admitted %d, shed %d, completed %d; at most %d in flight (bound %d)", l.Offered, l.Admitted, l.Shed, l.Completed, l.MaxInFlight, l.Bound)
		}
		if sr.Busy > 0 {
			sr.Throughput = float64(sr.Ops) / sr.Busy.Seconds()
		}
		if profile != nil {
			sr.CPU = profile.attribute(s.String(), w.rules())
		}
		res.Sides = append(res.Sides, sr)
	}
	for _, s := range sides {
		worlds[s].close()
		delete(worlds, s)
	}
	res.PeakHeap = heap.stop()
	res.GoroutinesAfter = settle(res.GoroutinesBefore, runtime.NumGoroutine)
	if cfg.Soak {
		sr := res.Sides[0]
		k := &Soak{Interval: soakInterval, Warmup: warmup(soakSamples, cfg.Duration/10, steady), Window: soakWindow(cfg.Duration), Series: series, Samples: soakSamples,
			GoroutinesBefore: res.GoroutinesBefore, GoroutinesAfter: res.GoroutinesAfter, FDsBefore: fdsBefore, FDsAfter: settle(fdsBefore, openFDs)}
		k.conclude(sr.LatencyOf(series), sr)
		sr.Soak = k
	}
	res.Elapsed = time.Since(start)
	if failed := res.Failed(); len(failed) > 0 {
		return res, fmt.Errorf("%w: %s", ErrCheck, failed[0])
	}
	return res, nil
}

// Profile labels: every goroutine of a side carries sideLabel; the end of
// run checks (an auditor, for example) also carry phaseLabel.
const (
	sideLabel  = "side"
	phaseLabel = "phase"
)

// heapCeiling is the most heap a side whose live objects are at most
// live may use: doubled for the garbage a collection cycle leaves, and
// 64 MiB for the rest of the process.
func heapCeiling(live uint64) uint64 { return 2*live + 64<<20 }

// settle waits briefly for count to come down to before (exiting
// goroutines, closing connections and files), and returns it.
func settle(before int, count func() int) int {
	n := count()
	for i := 0; i < 50 && n > before; i++ {
		time.Sleep(10 * time.Millisecond)
		n = count()
	}
	return n
}

var errSoakProfile = errors.New("not taken in a soak, where the profiler's memory would grow with the run")

// soakInterval is how often a soak samples the process.
const soakInterval = time.Second

// calibrate returns the capacity of w's Fanseal side: the operations per
// second a closed loop completes, on a world made for the measurement.
func calibrate(ctx context.Context, w Workload, cfg Config) (float64, error) {
	cfg.Rate, cfg.RateFactor, cfg.Faults = 0, 0, false
	d := min(10*time.Second, max(time.Second, cfg.Duration/10))
	var wd world
	var err error
	pprof.Do(ctx, pprof.Labels(sideLabel, Fanseal.String(), phaseLabel, "calibrate"), func(ctx context.Context) {
		if wd, err = w.newWorld(ctx, Fanseal, &cfg); err != nil {
			return
		}
		defer wd.close()
		_, _, completed, _ := wd.probe()
		t := time.Now()
		if err = wd.run(ctx, d); err != nil {
			return
		}
		elapsed := time.Since(t)
		if n := completed(); n > 0 {
			cfg.Rate = float64(n) / elapsed.Seconds()
		}
	})
	if err == nil && cfg.Rate == 0 {
		err = errors.New("nothing completed")
	}
	return cfg.Rate, err
}

// reportProgress calls progress about ten times a second until the
// returned function is called.
func reportProgress(progress func(float64), start time.Time, total time.Duration) (stop func()) {
	if progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				progress(min(1, float64(time.Since(start))/float64(total)))
			}
		}
	})
	return func() {
		if done != nil {
			close(done)
			wg.Wait()
			done = nil
		}
	}
}

// heapSampler records the peak live heap, overall and per active side.
type heapSampler struct {
	active atomic.Int32 // the side running, or -1
	peak   [2]atomic.Uint64
	all    atomic.Uint64
	done   chan struct{}
	wg     sync.WaitGroup
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func startHeapSampler() *heapSampler {
	h := &heapSampler{done: make(chan struct{})}
	h.active.Store(-1)
	h.wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			h.sample()
			select {
			case <-h.done:
				return
			case <-t.C:
			}
		}
	})
	return h
}

func (h *heapSampler) sample() {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	v := s[0].Value.Uint64()
	raise := func(p *atomic.Uint64) {
		for old := p.Load(); v > old && !p.CompareAndSwap(old, v); old = p.Load() {
		}
	}
	raise(&h.all)
	if a := h.active.Load(); a >= 0 {
		raise(&h.peak[a])
	}
}

// stop ends sampling (once) and returns the overall peak.
func (h *heapSampler) stop() uint64 {
	select {
	case <-h.done:
	default:
		close(h.done)
		h.wg.Wait()
	}
	return h.all.Load()
}
