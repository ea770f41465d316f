package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// synth writes benchmark output: for each name, count runs around ns with
// the given relative noise.
func synth(seed uint64, count int, noise float64, bench map[string]float64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example\n")
	for range count {
		for _, name := range []string{"BenchmarkA/n=1-2", "BenchmarkB/n=2-2", "BenchmarkC-2"} {
			ns, ok := bench[name]
			if !ok {
				continue
			}
			v := ns * (1 + noise*(2*r.Float64()-1))
			fmt.Fprintf(&b, "%s\t%d\t%.1f ns/op\t0 B/op\t0 allocs/op\n", name, 1000, v)
		}
	}
	return b.Bytes()
}

func verdicts(t *testing.T, base, head []byte) map[string]row {
	rows, err := compare(base, head, 0.20, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]row{}
	for _, r := range rows {
		m[r.name] = r
	}
	return m
}

func TestRegression(t *testing.T) {
	base := synth(1, 8, 0.03, map[string]float64{"BenchmarkA/n=1-2": 1000, "BenchmarkB/n=2-2": 500})
	head := synth(2, 8, 0.03, map[string]float64{"BenchmarkA/n=1-2": 1300, "BenchmarkB/n=2-2": 510})
	v := verdicts(t, base, head)
	if !v["BenchmarkA/n=1-2"].regression {
		t.Fatalf("30%% slowdown not flagged: %+v", v["BenchmarkA/n=1-2"])
	}
	if v["BenchmarkB/n=2-2"].regression {
		t.Fatal("2% slowdown flagged")
	}
	var out bytes.Buffer
	if n := printRows(&out, mustRows(t, base, head)); n != 1 || !strings.Contains(out.String(), "REGRESSION") {
		t.Fatalf("printRows counted %d:\n%s", n, out.String())
	}
}

func mustRows(t *testing.T, a, b []byte) []row {
	rows, err := compare(a, b, 0.20, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestImprovement(t *testing.T) {
	base := synth(3, 8, 0.03, map[string]float64{"BenchmarkA/n=1-2": 1000})
	head := synth(4, 8, 0.03, map[string]float64{"BenchmarkA/n=1-2": 400})
	r := verdicts(t, base, head)["BenchmarkA/n=1-2"]
	if r.regression || !r.improved {
		t.Fatalf("improvement misjudged: %+v", r)
	}
}

// TestNoise: a 25% median shift hidden in ±60% noise over few runs is not
// significant, so it does not fail the gate.
func TestNoise(t *testing.T) {
	base := synth(5, 4, 0.6, map[string]float64{"BenchmarkC-2": 1000})
	head := synth(6, 4, 0.6, map[string]float64{"BenchmarkC-2": 1250})
	if r := verdicts(t, base, head)["BenchmarkC-2"]; r.regression {
		t.Fatalf("noise flagged as a regression: %+v", r)
	}
	// The same noise without a shift never fails either.
	for seed := uint64(10); seed < 30; seed++ {
		b := synth(seed, 8, 0.3, map[string]float64{"BenchmarkC-2": 1000})
		h := synth(seed+100, 8, 0.3, map[string]float64{"BenchmarkC-2": 1000})
		if r := verdicts(t, b, h)["BenchmarkC-2"]; r.regression {
			t.Fatalf("seed %d: equal distributions flagged: %+v", seed, r)
		}
	}
}

func TestMissingBenchmark(t *testing.T) {
	base := synth(7, 8, 0.03, map[string]float64{"BenchmarkA/n=1-2": 1000, "BenchmarkB/n=2-2": 100})
	head := synth(8, 8, 0.03, map[string]float64{"BenchmarkA/n=1-2": 1000, "BenchmarkC-2": 100})
	v := verdicts(t, base, head)
	if r := v["BenchmarkC-2"]; r.base != 0 || r.regression {
		t.Fatalf("new benchmark: %+v", r)
	}
	if r := v["BenchmarkB/n=2-2"]; r.head != 0 || r.regression {
		t.Fatalf("removed benchmark: %+v", r)
	}
	var out bytes.Buffer
	if n := printRows(&out, mustRows(t, base, head)); n != 0 || !strings.Contains(out.String(), "missing in base") || !strings.Contains(out.String(), "missing in head") {
		t.Fatalf("table:\n%s", out.String())
	}
}
