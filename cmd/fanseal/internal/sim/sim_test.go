package sim

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// quick is the configuration of the workload tests: two short rounds.
func quick(faults bool) Config {
	d := 800 * time.Millisecond
	if testing.Short() {
		d = 500 * time.Millisecond
	}
	return Config{Duration: d, Rounds: 2, Seed: 7, Faults: faults}
}

// runBoth runs w on both sides, fails on any error or failed check, and
// returns the baseline and fanseal results.
func runBoth(t *testing.T, w Workload, cfg Config) (base, fan *SideResult) {
	t.Helper()
	res, err := Run(context.Background(), w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	base, fan = res.Side(Baseline), res.Side(Fanseal)
	if base == nil || fan == nil {
		t.Fatalf("sides %v", res.Sides)
	}
	for _, s := range res.Sides {
		if s.Ops == 0 || s.Busy <= 0 || len(s.Checks) == 0 {
			t.Fatalf("%s: %d operations in %v, %d checks", s.Side, s.Ops, s.Busy, len(s.Checks))
		}
		for _, l := range s.Latency {
			if len(l.Samples) == 0 || l.Percentile(50) <= 0 || l.Percentile(99) < l.Percentile(50) {
				t.Fatalf("%s %s: %d samples, p50 %v", s.Side, l.Name, len(l.Samples), l.Percentile(50))
			}
		}
	}
	if res.GoroutinesAfter > res.GoroutinesBefore {
		t.Fatalf("%d goroutines before the run, %d after", res.GoroutinesBefore, res.GoroutinesAfter)
	}
	return base, fan
}

// runEnough is runBoth for a test that needs a minimum of work on each
// side (the faults are injected at fixed transaction numbers): where
// enough says a side did too little, as under the race detector on a
// loaded machine, it runs again for twice as long, up to eight times the
// duration given, and returns the last run, which the caller then judges.
func runEnough(t *testing.T, w Workload, cfg Config, enough func(*SideResult) bool) (base, fan *SideResult) {
	t.Helper()
	for d := cfg.Duration; ; d *= 2 {
		cfg.Duration = d
		base, fan = runBoth(t, w, cfg)
		if (enough(base) && enough(fan)) || d >= 8*quick(false).Duration {
			return base, fan
		}
		t.Logf("%v: too little work (baseline %d, fanseal %d operations); running again for %v", d, base.Ops, fan.Ops, 2*d)
	}
}

func TestOnlyOneSide(t *testing.T) {
	cfg := quick(false)
	cfg.Only = []Side{Fanseal}
	res, err := Run(context.Background(), DKG(DKGOptions{Members: []int{4}}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sides) != 1 || res.Sides[0].Side != "fanseal" || res.Side(Baseline) != nil {
		t.Fatalf("sides %v", res.Sides)
	}
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), DKG(DKGOptions{}), Config{}); err == nil {
		t.Fatal("zero duration accepted")
	}
	if _, err := Run(context.Background(), DKG(DKGOptions{}), Config{Duration: time.Second, Rate: 5}); err == nil {
		t.Fatal("dkg accepted a rate")
	}
	if _, err := Run(context.Background(), DKG(DKGOptions{}), Config{Duration: time.Second, Concurrency: 5}); err == nil {
		t.Fatal("dkg accepted a concurrency")
	}
	if _, err := Run(context.Background(), Ledger(LedgerOptions{}), Config{Duration: time.Second, Rounds: 1}); err == nil {
		t.Fatal("ledger accepted one round: no rekey halfway")
	}
}

func TestDriveOpenLoop(t *testing.T) {
	var mu sync.Mutex
	var due []time.Time
	load, err := drive(context.Background(), 200*time.Millisecond, 0, 100, 0, func(_ context.Context, d time.Time) error {
		mu.Lock()
		defer mu.Unlock()
		due = append(due, d)
		return nil
	})
	if err != nil || load.Shed != 0 || load.Offered != 20 || load.Completed != 20 {
		t.Fatal(err, load)
	}
	// Operations are due every 10 ms from the start, whatever the load.
	slices.SortFunc(due, time.Time.Compare)
	if len(due) != 20 {
		t.Fatalf("%d operations due at 100/s in 200 ms, want 20", len(due))
	}
	for i := 1; i < len(due); i++ {
		if d := due[i].Sub(due[i-1]); d != 10*time.Millisecond {
			t.Fatalf("operations due %v apart, want 10ms", d)
		}
	}
	// The first error ends the run and is returned.
	boom := errors.New("boom")
	if _, err := drive(context.Background(), time.Second, 2, 0, 0, func(context.Context, time.Time) error { return boom }); err != boom {
		t.Fatalf("closed loop error: %v", err)
	}
}

func TestPercentile(t *testing.T) {
	l := &Latency{}
	if l.Percentile(50) != 0 {
		t.Fatal("percentile without samples")
	}
	for i := 1; i <= 100; i++ {
		l.Samples = append(l.Samples, float64(i))
	}
	for p, want := range map[float64]float64{50: 50, 99: 99, 100: 100, 1: 1, 0.5: 1} {
		if got := l.Percentile(p); got != want {
			t.Fatalf("p%v = %v, want %v", p, got, want)
		}
	}
	var r recorder
	r.declare("a", "")
	for range maxSamples + 3 {
		r.add("a", time.Nanosecond)
	}
	if s := r.sorted()[0]; len(s.Samples) != maxSamples || s.Count != maxSamples+3 {
		t.Fatalf("%d samples kept of %d", len(s.Samples), s.Count)
	}
}
