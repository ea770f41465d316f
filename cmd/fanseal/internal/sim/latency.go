package sim

import (
	"encoding/json"
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
	// Samples are the durations in nanoseconds, sorted. At most
	// maxSamples are kept; later ones are dropped.
	Samples []float64 `json:"-"`
	// Dropped counts samples beyond maxSamples.
	Dropped int `json:"dropped,omitempty"`
}

// FewSamples is the count under which a series' percentiles are marked
// as rough in the report and in its JSON.
const FewSamples = 20

// Few reports whether the series has fewer than FewSamples samples.
func (l *Latency) Few() bool { return l != nil && len(l.Samples) < FewSamples }

// maxSamples bounds one series' memory (8 MiB).
const maxSamples = 1 << 20

// Percentile returns the p-th percentile (nearest rank, 0 < p ≤ 100) in
// nanoseconds, or 0 without samples.
func (l *Latency) Percentile(p float64) float64 {
	if l == nil || len(l.Samples) == 0 {
		return 0
	}
	i := int(float64(len(l.Samples))*p/100+0.999999) - 1
	return l.Samples[max(0, min(i, len(l.Samples)-1))]
}

// MarshalJSON writes the series' percentiles instead of its samples.
func (l *Latency) MarshalJSON() ([]byte, error) {
	type summary struct {
		Name    string  `json:"name"`
		What    string  `json:"what"`
		Count   int     `json:"count"`
		Few     bool    `json:"few_samples,omitempty"` // fewer than FewSamples: rough percentiles
		Dropped int     `json:"dropped,omitempty"`
		P50     float64 `json:"p50_ns"`
		P90     float64 `json:"p90_ns"`
		P99     float64 `json:"p99_ns"`
		Max     float64 `json:"max_ns"`
	}
	return json.Marshal(summary{l.Name, l.What, len(l.Samples), l.Few(), l.Dropped,
		l.Percentile(50), l.Percentile(90), l.Percentile(99), l.Percentile(100)})
}

// A recorder collects latency series. It is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	series []*Latency
}

// declare adds the series in the order a report shows them.
func (r *recorder) declare(name, what string) {
	r.series = append(r.series, &Latency{Name: name, What: what})
}

// add records one sample of the declared series name.
func (r *recorder) add(name string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.series {
		if l.Name == name {
			if len(l.Samples) < maxSamples {
				l.Samples = append(l.Samples, float64(d.Nanoseconds()))
			} else {
				l.Dropped++
			}
			return
		}
	}
	panic("sim: undeclared latency series " + name)
}

// sorted returns the series with their samples sorted.
func (r *recorder) sorted() []*Latency {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.series {
		slices.Sort(l.Samples)
	}
	return r.series
}
