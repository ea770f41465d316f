package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSimHelp(t *testing.T) {
	out := mustRun(t, "", "sim", "--help")
	for _, want := range []string{"synchronizer", "ledger", "dkg", "--duration", "--rate", "--faults", "--baseline", "--plot", "--cpuprofile", "CPU shares"} {
		if !strings.Contains(out, want) {
			t.Fatalf("sim --help lacks %q", want)
		}
	}
	if got := mustRun(t, "", "sim", "ledger", "-h"); got != out {
		t.Fatal("sim ledger -h differs from sim --help")
	}
	if !strings.Contains(mustRun(t, "", "--help"), "fanseal sim") {
		t.Fatal("fanseal --help does not mention sim")
	}
	mustFail(t, "", "name a workload", "sim")
	mustFail(t, "", "unknown workload", "sim", "validator")
	mustFail(t, "", ".png or .svg", "sim", "dkg", "--plot", "x.gif")
	mustFail(t, "", "--baseline and --after", "sim", "dkg", "--baseline", "--after")
	mustFail(t, "", "--members", "sim", "dkg", "--members", "1")
	mustFail(t, "", "--suite", "sim", "dkg", "--suite", "p256")
	mustFail(t, "", "--suite", "sim", "synchronizer", "--suite", "mlkem768x25519")
	mustFail(t, "", "--participants", "sim", "synchronizer", "--participants", "2")
	mustFail(t, "", "--max-size", "sim", "ledger", "--max-size", "10", "--min-size", "20")
	mustFail(t, "", "--rate and --concurrency do not apply", "sim", "dkg", "--rate", "10", "--quick")
}

func TestSimQuick(t *testing.T) {
	dir := t.TempDir()
	js, svg, prof := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.svg"), filepath.Join(dir, "cpu.prof")
	out := mustRun(t, "", "sim", "dkg", "--quick", "--members", "4,5", "--duration", "300ms", "--faults",
		"--json", js, "--plot", svg, "--cpuprofile", prof)
	for _, want := range []string{"fanseal sim dkg", "baseline", "fanseal", "ratio", "round n=5 p50", "crypto share of CPU",
		"ok   fanseal: only the victim fails", "goroutines"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	var rep struct {
		Workload string
		Sides    []struct {
			Side    string
			Ops     int
			Latency []struct {
				Name  string
				Count int
				P50   float64 `json:"p50_ns"`
			}
		}
	}
	b, err := os.ReadFile(js)
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("JSON report: %v", err)
	}
	if rep.Workload != "dkg" || len(rep.Sides) != 2 || rep.Sides[0].Ops == 0 || rep.Sides[1].Latency[1].P50 <= 0 {
		t.Fatalf("JSON report: %+v", rep)
	}
	if img, _ := os.ReadFile(svg); !bytes.Contains(img, []byte("<svg")) {
		t.Fatal("plot is not an SVG")
	}
	if p, _ := os.ReadFile(prof); len(p) < 2 || p[0] != 0x1f || p[1] != 0x8b {
		t.Fatal("CPU profile is not a gzip-compressed pprof file")
	}

	// One side only: one column, no ratio.
	out = mustRun(t, "", "sim", "ledger", "--quick", "--after", "--duration", "300ms", "--workers", "1", "--plot", filepath.Join(dir, "l.png"))
	if strings.Contains(out, "baseline") || strings.Contains(out, " ratio\n") || !strings.Contains(out, "AES-GCM key setup share") {
		t.Fatalf("--after output:\n%s", out)
	}
	if img, _ := os.ReadFile(filepath.Join(dir, "l.png")); !bytes.HasPrefix(img, []byte("\x89PNG")) {
		t.Fatal("plot is not a PNG")
	}
	out = mustRun(t, "", "sim", "synchronizer", "--quick", "--participants", "4", "--duration", "300ms", "--rate", "50", "--strategy", "shared-parallel")
	if !strings.Contains(out, "open loop at 50/s") || !strings.Contains(out, "ok   fanseal: no verdict lost") {
		t.Fatalf("synchronizer output:\n%s", out)
	}
}

// TestSimOverloadAndSoak: --rate Nx sheds what it cannot admit and says
// so; --soak samples into the JSON and checks its criteria; bad values of
// --rate and --disk-rate are refused.
func TestSimOverloadAndSoak(t *testing.T) {
	out := mustRun(t, "", "sim", "synchronizer", "--quick", "--after", "--participants", "4", "--duration", "2s", "--rate", "5x", "--concurrency", "8")
	for _, want := range []string{"5× the capacity a closed loop measured", "load: shed at admission", "load: admission bound                                 8",
		"ok   fanseal: every admitted operation completed", "ok   fanseal: peak heap under the ceiling"} {
		if !strings.Contains(out, want) {
			t.Fatalf("overload output lacks %q:\n%s", want, out)
		}
	}
	out = mustRun(t, "", "sim", "ledger", "--quick", "--after", "--workers", "1", "--disk-rate", "2M", "--rate", "2x", "--duration", "2s")
	if !strings.Contains(out, "a disk of 2.0 MiB/s") || !strings.Contains(out, "ok   fanseal: auditor accepts every committed transaction") {
		t.Fatalf("slow disk output:\n%s", out)
	}
	js := filepath.Join(t.TempDir(), "soak.json")
	args := []string{"sim", "dkg", "--quick", "--soak", "--members", "4", "--duration", "4s", "--json", js}
	status, out, errOut := cli(t, "", args...)
	// A soak of 4 s judges its heap (under 2 MiB) and its p99 (of 1-s
	// windows) by what this machine and the tests running beside it do
	// from one second to the next, so either verdict is a working soak
	// here (TestSoakCriteria judges the criteria on samples given). What
	// must hold on any machine: the workload's own checks, goroutines and
	// files back to their counts, and all four criteria made and reported.
	const noisy = `soak: (the heap does not grow|p99 latency holds)`
	soakCheck := regexp.MustCompile(`(?m)^(ok  |FAIL) fanseal: ` + noisy + ` \(`)
	if status != 0 && (status != 1 || !regexp.MustCompile(`^fanseal: error: sim: an invariant failed: fanseal: `+noisy+`: `).MatchString(errOut)) {
		t.Fatalf("fanseal %v: status %d: %s", args, status, errOut)
	}
	// One sample a second over 4 s, at its start and at its end: 5, or
	// one either way where the last tick and the end of the run race.
	m := regexp.MustCompile(`soak: (\d+) samples, one every 1s`).FindStringSubmatch(out)
	if strings.Contains(out, "baseline") || len(soakCheck.FindAllString(out, -1)) != 2 || m == nil || m[1] < "4" || m[1] > "6" || len(m[1]) != 1 {
		t.Fatalf("soak output:\n%s", out)
	}
	for _, want := range []string{"ok   fanseal: every box that should open opened", "ok   fanseal: soak: goroutines return to their count before the run", "ok   fanseal: soak: open files return to their count before the run"} {
		if !strings.Contains(out, want) {
			t.Fatalf("soak output lacks %q:\n%s", want, out)
		}
	}
	var rep struct {
		Config struct{ Soak bool }
		Sides  []struct {
			Soak struct {
				Samples []struct {
					Heap       uint64 `json:"heap_bytes"`
					Goroutines int
					FDs        int
				}
			}
		}
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &rep) != nil || !rep.Config.Soak || len(rep.Sides) != 1 || len(rep.Sides[0].Soak.Samples) < 4 ||
		rep.Sides[0].Soak.Samples[1].Heap == 0 || rep.Sides[0].Soak.Samples[1].Goroutines == 0 {
		t.Fatalf("soak JSON: %v %+v", err, rep)
	}
	mustFail(t, "", "is not a rate", "sim", "synchronizer", "--rate", "fast")
	mustFail(t, "", "is not a rate", "sim", "synchronizer", "--rate", "-2x")
	mustFail(t, "", "is not a byte count", "sim", "ledger", "--disk-rate", "0")
	mustFail(t, "", "--baseline and --after together", "sim", "ledger", "--soak", "--baseline", "--after")
}
