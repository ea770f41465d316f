package main

import (
	"errors"
	"fmt"
	"io"
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
	outs, abort, err := startOutputs(stdout, [2]string{"--json", *jsonOut}, [2]string{"--plot", *plotOut},
		[2]string{"--cpuprofile", *cpuProfile}, [2]string{"--memprofile", *memProfile})
	if err != nil {
		return err
	}
	defer abort()
	jsonFile, plotFile, cpuFile, memFile := outs[0], outs[1], outs[2], outs[3]
	table := stdout // the tables go to stderr when an output is standard output
	for _, o := range outs {
		if o.stdout() {
			table = stderr
		}
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
	if cpuFile != nil {
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	cfg := bench.Config{Quick: *quick, Extra: *extra}
	cfg.Progress = report.NewBar(stderr, bench.Cells(cfg))
	defer cfg.Progress.Done()
	rep, err := bench.Run(cfg, table)
	if err != nil {
		return err
	}
	if cpuFile != nil {
		pprof.StopCPUProfile()
		if err := cpuFile.Commit(); err != nil {
			return err
		}
	}
	if jsonFile != nil {
		if err := jsonFile.writeJSON(rep); err != nil {
			return err
		}
	}
	if plotFile != nil {
		svg := strings.HasSuffix(*plotOut, ".svg")
		if err := plotFile.commitWith(func(w io.Writer) error { return bench.Plot(w, svg, rep) }); err != nil {
			return err
		}
	}
	if memFile != nil {
		runtime.GC()
		if err := memFile.commitWith(pprof.WriteHeapProfile); err != nil {
			return err
		}
	}
	return nil
}
