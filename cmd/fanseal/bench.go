package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/bench"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// runBench runs fanseal bench: the flags, the profiles and the output
// files around bench.Run.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
	fs := newFlags("bench")
	quick := fs.Bool("quick", false, "a run of a few seconds")
	extra := fs.Int("recipients", 100, "an extra recipient count (0: none)")
	jsonOut := fs.String("json", "", "write every figure as JSON to this file")
	plotOut := fs.String("plot", "", "draw latency against recipients to this .png or .svg file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file")
	pprofAddr := fs.String("pprof", "", "serve live profiles on this loopback address")
	pprofPublic := fs.Bool("pprof-public", false, "allow --pprof on a non-loopback address")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *extra < 0 || *extra > fanseal.MaxRecipients {
		return fmt.Errorf("%w: --recipients must be 0 to %d", errUsage, fanseal.MaxRecipients)
	}
	if *plotOut != "" && !strings.HasSuffix(*plotOut, ".png") && !strings.HasSuffix(*plotOut, ".svg") {
		return fmt.Errorf("%w: --plot needs a .png or .svg file name", errUsage)
	}
	if *pprofAddr != "" {
		srv, addr, err := bench.ServePprof(*pprofAddr, *pprofPublic)
		if errors.Is(err, bench.ErrAddress) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if err != nil {
			return err
		}
		defer srv.Close()
		fmt.Fprintf(stderr, "fanseal: serving profiles on http://%s/debug/pprof/\n", addr)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	cfg := bench.Config{Quick: *quick, Extra: *extra}
	cfg.Progress = report.NewBar(stderr, bench.Cells(cfg))
	defer cfg.Progress.Done()
	rep, err := bench.Run(cfg, stdout)
	if err != nil {
		return err
	}
	if *jsonOut != "" {
		if err := writeJSON(*jsonOut, rep); err != nil {
			return err
		}
	}
	if *plotOut != "" {
		svg := strings.HasSuffix(*plotOut, ".svg")
		if err := writeReplacing(*plotOut, func(w io.Writer) error { return bench.Plot(w, svg, rep) }); err != nil {
			return err
		}
	}
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
	}
	return nil
}
