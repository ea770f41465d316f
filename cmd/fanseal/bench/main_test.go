package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/cli"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/clitest"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/bench"
)

// program runs bench in-process.
var program = clitest.Program{Name: "bench", Exec: tool.Exec}

// TestBenchQuick runs go run ./cmd/fanseal/bench --quick with its output files; what
// the report holds is internal/bench's TestRunQuick.
func TestBenchQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes a few seconds")
	}
	dir := t.TempDir()
	jsonFile, png := filepath.Join(dir, "b.json"), filepath.Join(dir, "b.png")
	out := program.MustRun(t, "", "--quick", "--recipients", "0", "--json", jsonFile, "--plot", png)
	for _, want := range []string{"fanseal bench:", "suite p256", "loopback TCP", "cells in"} {
		if !strings.Contains(out, want) {
			t.Fatalf("bench output lacks %q:\n%s", want, out)
		}
	}
	var rep bench.Report
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Machine.Cores == 0 || len(rep.Seal) == 0 || len(rep.Drain) == 0 {
		t.Fatalf("JSON report: machine %+v, %d seal cells", rep.Machine, len(rep.Seal))
	}
	if img, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(img, []byte("\x89PNG")) {
		t.Fatalf("plot is not a PNG: %v", err)
	}
	program.MustFail(t, "", "--recipients", "--recipients", "-1")
	program.MustFail(t, "", ".png or .svg", "--plot", "x.gif")
}

// TestNoProfilesByDefault checks that bench never links net/http/pprof,
// whose import registers handlers on http.DefaultServeMux: without --pprof
// no profile is reachable through anything bench serves.
func TestNoProfilesByDefault(t *testing.T) {
	_, pattern := http.DefaultServeMux.Handler(httptest.NewRequest("GET", "/debug/pprof/", nil))
	if pattern != "" {
		t.Fatalf("http.DefaultServeMux serves %q: net/http/pprof is linked", pattern)
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	if strings.Contains(string(out), "net/http/pprof\n") {
		t.Fatal("bench depends on net/http/pprof")
	}
}

func TestPprofServer(t *testing.T) {
	if _, _, err := bench.ServePprof("0.0.0.0:0", false); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("non-loopback address: %v", err)
	}
	if _, _, err := bench.ServePprof("nonsense", false); err == nil {
		t.Fatal("address without a port accepted")
	}
	srv, addr, err := bench.ServePprof("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for path, want := range map[string]string{"/debug/pprof/": "goroutine", "/debug/pprof/goroutine?debug=1": "goroutine profile", "/debug/pprof/heap": ""} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) || len(body) == 0 {
			t.Fatalf("GET %s: %d %q", path, resp.StatusCode, body[:min(len(body), 80)])
		}
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/nosuch")
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("unknown profile: %v %v", resp, err)
	}
	resp.Body.Close()
	// A profile run of the command itself, with files.
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	status, _, errOut := program.Run(t, "", "--quick", "--recipients", "0", "--pprof", "127.0.0.1:0", "--cpuprofile", cpu, "--memprofile", mem)
	if status != 0 || !strings.Contains(errOut, "serving profiles on http://127.0.0.1:") {
		t.Fatalf("bench --pprof: %d %s", status, errOut)
	}
	for _, f := range []string{cpu, mem} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Fatalf("profile %s: %v", f, err)
		}
	}
}

// TestHelpMatchesFlags checks bench --help against its flags, and the
// flags the README mentions after go run ./cmd/fanseal/bench.
func TestHelpMatchesFlags(t *testing.T) {
	fs := cli.NewFlags("bench")
	benchFlags(fs)
	sets := clitest.Sets{"bench": {fs}}
	help := "Usage:\n    " + benchUsage + benchHelp
	clitest.Check(t, tool.Program(), "bench", help, sets)
	if n := strings.Count(help, "$ "+tool.Program()); n < 2 || n > 4 {
		t.Errorf("bench --help has %d examples, want 2 or 3", n)
	}
	def := fs.Lookup("recipients").DefValue
	if !strings.Contains(help, "(default "+def+";") || strings.Contains(help, "2 to 20") {
		t.Errorf("bench --help does not say --recipients defaults to %s", def)
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	clitest.CheckText(t, "README.md", string(readme), sets)
}

// TestHelp: --help and -h print the help on standard output with status
// 0; an unknown flag prints the error and the usage on standard error.
func TestHelp(t *testing.T) {
	want := program.MustRun(t, "", "--help")
	if !strings.HasPrefix(want, "Usage:\n    go run ./cmd/fanseal/bench [--quick]") || !strings.Contains(want, "Options:") {
		t.Fatalf("bench --help:\n%s", want)
	}
	if got := program.MustRun(t, "", "-h"); got != want {
		t.Error("bench -h differs from bench --help")
	}
	status, out, errOut := program.Run(t, "", "--no-such-flag")
	if status != 1 || out != "" || !strings.Contains(errOut, "flag provided but not defined: --no-such-flag") ||
		!strings.Contains(errOut, "Usage:\n    go run ./cmd/fanseal/bench") || !strings.Contains(errOut, "fanseal: see go run ./cmd/fanseal/bench --help") {
		t.Errorf("bench --no-such-flag: status %d, stdout %q, stderr:\n%s", status, out, errOut)
	}
}
