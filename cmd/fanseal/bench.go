package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/bench"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// benchOptions are bench's flags.
type benchOptions struct {
	quick, pprofPublic                                  bool
	extra                                               int
	jsonOut, plotOut, cpuProfile, memProfile, pprofAddr string
}

func benchFlags(fs *flag.FlagSet) *benchOptions {
	o := &benchOptions{}
	fs.BoolVar(&o.quick, "quick", false, "a run of a few seconds")
	fs.IntVar(&o.extra, "recipients", 100, "an extra recipient count (0: none)")
	fs.StringVar(&o.jsonOut, "json", "", "write every figure as JSON to this file")
	fs.StringVar(&o.plotOut, "plot", "", "draw latency against recipients to this .png or .svg file")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile to this file")
	fs.StringVar(&o.pprofAddr, "pprof", "", "serve live profiles on this loopback address")
	fs.BoolVar(&o.pprofPublic, "pprof-public", false, "allow --pprof on a non-loopback address")
	return o
}

// runBench runs fanseal bench: the flags, the profiles and the output
// files around bench.Run.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
	fs := newFlags("bench")
	o := benchFlags(fs)
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if o.extra < 0 || o.extra > fanseal.MaxRecipients {
		return fmt.Errorf("%w: --recipients must be 0 to %d", errUsage, fanseal.MaxRecipients)
	}
	if o.plotOut != "" && !strings.HasSuffix(o.plotOut, ".png") && !strings.HasSuffix(o.plotOut, ".svg") {
		return fmt.Errorf("%w: --plot needs a .png or .svg file name", errUsage)
	}
	outs, abort, err := startOutputs(stdout, [2]string{"--json", o.jsonOut}, [2]string{"--plot", o.plotOut},
		[2]string{"--cpuprofile", o.cpuProfile}, [2]string{"--memprofile", o.memProfile})
	if err != nil {
		return err
	}
	defer abort()
	jsonFile, plotFile, cpuFile, memFile := outs[0], outs[1], outs[2], outs[3]
	table := reportTo(outs, stdout, stderr)
	if o.pprofAddr != "" {
		srv, addr, err := bench.ServePprof(o.pprofAddr, o.pprofPublic)
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

	cfg := bench.Config{Quick: o.quick, Extra: o.extra}
	cfg.Progress = report.NewBar(stderr, bench.Cells(cfg))
	defer cfg.Progress.Done()
	lines := cfg.Progress.Lines(table)
	rep, err := bench.Run(cfg, lines)
	if ferr := lines.Flush(); err == nil {
		err = ferr
	}
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
		svg := strings.HasSuffix(o.plotOut, ".svg")
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
