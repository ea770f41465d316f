package sim

import (
	"encoding/json"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"time"
)

// A Latency is one measured series: its name, what it times, and its
// samples.
type Latency struct {
	Name string `json:"name"`
	// What says what the series times.
	What string `json:"what"`
	// Samples are the durations in nanoseconds, sorted: every sample
	// while there are at most maxSamples, and past that a uniform random
	// sample of maxSamples of them (reservoir sampling), so that a long
	// run's percentiles cover all of it in bounded memory.
	Samples []float64 `json:"-"`
	// Count is the number of samples recorded; Count − len(Samples) were
	// not kept.
	Count int64 `json:"-"`
	// Windows are the series per window of the run, in order (see
	// recorder.windowed); nil unless windowed.
	Windows []Window `json:"-"`

	cur      []float64 // a uniform sample of the current window's samples
	curCount int       // the current window's samples
	curIdx   int       // its index
}

// A Window is a series' summary over one window of a run.
type Window struct {
	// Start is the window's start, from the start of the run.
	Start time.Duration `json:"start_ns"`
	Count int           `json:"count"`
	P50   float64       `json:"p50_ns"`
	P99   float64       `json:"p99_ns"`
	// Partial is set for a last window that the run's end cut short.
	Partial bool `json:"partial,omitempty"`
}

// FewSamples is the count under which a series' percentiles are marked
// as rough in the report and in its JSON.
const FewSamples = 20

// Few reports whether the series has fewer than FewSamples samples.
func (l *Latency) Few() bool { return l != nil && len(l.Samples) < FewSamples }

// maxSamples bounds the samples one series keeps, and one window of it
// (512 KiB each): a uniform sample of 65 536 gives a p99 within a few
// hundredths of a percentile of the whole series'.
const maxSamples = 1 << 16

// Percentile returns the p-th percentile (nearest rank, 0 < p ≤ 100) in
// nanoseconds, or 0 without samples.
func (l *Latency) Percentile(p float64) float64 {
	if l == nil {
		return 0
	}
	return percentile(l.Samples, p)
}

// percentile is Percentile of sorted samples s.
func percentile(s []float64, p float64) float64 {
	if len(s) == 0 {
		return 0
	}
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// MarshalJSON writes the series' percentiles instead of its samples.
func (l *Latency) MarshalJSON() ([]byte, error) {
	type summary struct {
		Name    string   `json:"name"`
		What    string   `json:"what"`
		Count   int64    `json:"count"`
		Kept    int      `json:"kept"` // samples behind the percentiles
		Few     bool     `json:"few_samples,omitempty"`
		P50     float64  `json:"p50_ns"`
		P90     float64  `json:"p90_ns"`
		P99     float64  `json:"p99_ns"`
		Max     float64  `json:"max_ns"`
		Windows []Window `json:"windows,omitempty"`
	}
	return json.Marshal(summary{l.Name, l.What, l.Count, len(l.Samples), l.Few(),
		l.Percentile(50), l.Percentile(90), l.Percentile(99), l.Percentile(100), l.Windows})
}

// A recorder collects latency series. It is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	series []*Latency
	rng    *mrand.Rand // reservoir sampling; deterministic
	// window, if positive, also summarises every series per window of
	// this length from start.
	window time.Duration
	start  time.Time
}

// declare adds the series in the order a report shows them.
func (r *recorder) declare(name, what string) {
	r.series = append(r.series, &Latency{Name: name, What: what})
}

// windowed makes the recorder summarise every series per window of d from
// start, from now on, as a soak does. It also gives every series the
// room of its bound (maxSamples, for the whole run and for a window), so
// that the recorder's memory is the same from the start and the heap a
// soak watches grows only with the workload.
func (r *recorder) windowed(start time.Time, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.start, r.window = start, d
	for _, l := range r.series {
		l.Samples = slices.Grow(l.Samples, maxSamples-len(l.Samples))
		l.cur = slices.Grow(l.cur, maxSamples-len(l.cur))
	}
}

// add records one sample of the declared series name.
func (r *recorder) add(name string, d time.Duration) {
	v := float64(d.Nanoseconds())
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.series {
		if l.Name != name {
			continue
		}
		l.Count++
		l.Samples = r.keep(l.Samples, l.Count, v)
		if r.window > 0 {
			idx := int(time.Since(r.start) / r.window)
			if idx != l.curIdx {
				l.closeWindow(r.window, false)
				l.curIdx = idx
			}
			l.curCount++
			l.cur = r.keep(l.cur, int64(l.curCount), v)
		}
		return
	}
	panic("sim: undeclared latency series " + name)
}

// keep adds v, the n-th sample of a series, to the uniform sample s of at
// most maxSamples (reservoir sampling, algorithm R).
func (r *recorder) keep(s []float64, n int64, v float64) []float64 {
	if len(s) < maxSamples {
		return append(s, v)
	}
	if r.rng == nil {
		r.rng = mrand.New(mrand.NewPCG(1, 2))
	}
	if j := r.rng.Int64N(n); j < maxSamples {
		s[j] = v
	}
	return s
}

// closeWindow summarises the current window into Windows.
func (l *Latency) closeWindow(d time.Duration, partial bool) {
	if l.curCount == 0 {
		return
	}
	slices.Sort(l.cur)
	l.Windows = append(l.Windows, Window{Start: time.Duration(l.curIdx) * d, Count: l.curCount,
		P50: percentile(l.cur, 50), P99: percentile(l.cur, 99), Partial: partial})
	l.cur, l.curCount = l.cur[:0], 0
}

// sorted returns the series with their samples sorted, and their last
// window summarised.
func (r *recorder) sorted() []*Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.series {
		slices.Sort(l.Samples)
		if r.window > 0 {
			l.closeWindow(r.window, true)
		}
	}
	return r.series
}
