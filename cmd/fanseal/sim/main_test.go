package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/cli"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/clitest"
)

// program runs sim in-process.
var program = clitest.Program{Name: "sim", Exec: tool.Exec}

// TestHelpMatchesFlags checks sim --help against every workload's flags,
// and the flags the README mentions after go run ./cmd/fanseal/sim.
func TestHelpMatchesFlags(t *testing.T) {
	sets := clitest.Sets{}
	for _, w := range simWorkloads {
		fs := cli.NewFlags("sim " + w)
		simFlags(w, fs)
		sets["sim"] = append(sets["sim"], fs)
		sets["sim "+w] = []*flag.FlagSet{fs}
	}
	help := "Usage:\n    " + simUsageLine + simHelp
	clitest.Check(t, tool.Program(), "sim", help, sets)
	if n := strings.Count(help, "$ "+tool.Program()+" "); n < 2 || n > 4 {
		t.Errorf("sim --help has %d examples, want 2 or 3", n)
	}
	strategies := regexp.MustCompile(`--strategy ((?:[a-z-]+\|\s*)+[a-z-]+)`).FindString(help)
	for _, s := range fanseal.Strategies {
		if !strings.Contains(strategies, s.String()) {
			t.Errorf("sim --help lists --strategy %s without %s", strings.TrimSpace(strategies), s)
		}
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	clitest.CheckText(t, "README.md", string(readme), sets)
}

func TestSimHelp(t *testing.T) {
	out := program.MustRun(t, "", "--help")
	for _, want := range []string{"synchronizer", "ledger", "dkg", "--duration", "--rate", "--faults", "--baseline", "--plot", "--cpuprofile", "CPU shares"} {
		if !strings.Contains(out, want) {
			t.Fatalf("sim --help lacks %q", want)
		}
	}
	if got := program.MustRun(t, "", "ledger", "-h"); got != out {
		t.Fatal("sim ledger -h differs from sim --help")
	}
	program.MustFail(t, "", "name a workload")
	program.MustFail(t, "", "unknown workload", "validator")
	program.MustFail(t, "", ".png or .svg", "dkg", "--plot", "x.gif")
	program.MustFail(t, "", "--baseline and --after", "dkg", "--baseline", "--after")
	program.MustFail(t, "", "--members", "dkg", "--members", "1")
	program.MustFail(t, "", "--suite", "dkg", "--suite", "p256")
	program.MustFail(t, "", "--suite", "synchronizer", "--suite", "mlkem768x25519")
	program.MustFail(t, "", "--participants", "synchronizer", "--participants", "2")
	program.MustFail(t, "", "--max-size", "ledger", "--max-size", "10", "--min-size", "20")
	program.MustFail(t, "", "--rate and --concurrency do not apply", "dkg", "--rate", "10", "--quick")
}

func TestSimQuick(t *testing.T) {
	dir := t.TempDir()
	js, svg, prof := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.svg"), filepath.Join(dir, "cpu.prof")
	out := program.MustRun(t, "", "dkg", "--quick", "--members", "4,5", "--duration", "300ms", "--faults",
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
	out = program.MustRun(t, "", "ledger", "--quick", "--after", "--duration", "300ms", "--workers", "1", "--plot", filepath.Join(dir, "l.png"))
	if strings.Contains(out, "baseline") || strings.Contains(out, " ratio\n") || !strings.Contains(out, "AES-GCM key setup share") {
		t.Fatalf("--after output:\n%s", out)
	}
	if img, _ := os.ReadFile(filepath.Join(dir, "l.png")); !bytes.HasPrefix(img, []byte("\x89PNG")) {
		t.Fatal("plot is not a PNG")
	}
	out = program.MustRun(t, "", "synchronizer", "--quick", "--participants", "4", "--duration", "300ms", "--rate", "50", "--strategy", "shared-parallel")
	if !strings.Contains(out, "open loop at 50/s") || !strings.Contains(out, "ok   fanseal: no verdict lost") {
		t.Fatalf("synchronizer output:\n%s", out)
	}
}

// TestSimOverloadAndSoak: --rate Nx sheds what it cannot admit and says
// so; --soak samples into the JSON and checks its criteria; bad values of
// --rate and --disk-rate are refused.
func TestSimOverloadAndSoak(t *testing.T) {
	out := program.MustRun(t, "", "synchronizer", "--quick", "--after", "--participants", "4", "--duration", "2s", "--rate", "5x", "--concurrency", "8")
	for _, want := range []string{"5× the capacity a closed loop measured", "load: shed at admission", "load: admission bound                                 8",
		"ok   fanseal: every admitted operation completed", "ok   fanseal: peak heap under the ceiling"} {
		if !strings.Contains(out, want) {
			t.Fatalf("overload output lacks %q:\n%s", want, out)
		}
	}
	out = program.MustRun(t, "", "ledger", "--quick", "--after", "--workers", "1", "--disk-rate", "2M", "--rate", "2x", "--duration", "2s")
	if !strings.Contains(out, "a disk of 2.0 MiB/s") || !strings.Contains(out, "ok   fanseal: auditor accepts every committed transaction") {
		t.Fatalf("slow disk output:\n%s", out)
	}
	js := filepath.Join(t.TempDir(), "soak.json")
	args := []string{"dkg", "--quick", "--soak", "--members", "4", "--duration", "4s", "--json", js}
	status, out, errOut := program.Run(t, "", args...)
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
	program.MustFail(t, "", "is not a rate", "synchronizer", "--rate", "fast")
	program.MustFail(t, "", "is not a rate", "synchronizer", "--rate", "-2x")
	program.MustFail(t, "", "is not a byte count", "ledger", "--disk-rate", "0")
	program.MustFail(t, "", "--baseline and --after together", "ledger", "--soak", "--baseline", "--after")
}
