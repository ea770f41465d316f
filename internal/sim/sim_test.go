package sim

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// quick is the configuration of the tests: short, two rounds.
func quick(faults bool) Config {
	d := time.Second
	if testing.Short() {
		d = 400 * time.Millisecond
	}
	return Config{Duration: d, Rounds: 2, Seed: 1, Faults: faults}
}

func run(t *testing.T, w Workload, cfg Config) *Result {
	t.Helper()
	res, err := Run(context.Background(), w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sides) != 2 {
		t.Fatalf("%d sides", len(res.Sides))
	}
	return res
}
