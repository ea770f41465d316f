// Bench measures fanseal's hot paths on this machine, with generated keys
// and nothing to set up:
//
//	go run ./cmd/fanseal/bench [--quick] [--recipients N] [--json FILE] [--plot FILE] ...
//
// It is a program of its own, not a fanseal command, so that the fanseal
// command neither links nor initialises what only a benchmark needs (plots,
// fonts, an HTTP server for live profiles). go run ./cmd/fanseal/bench
// --help explains every flag.
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
	"github.com/fanseal/fanseal/cmd/fanseal/internal/cli"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// benchUsage is bench's usage line.
const benchUsage = `go run ./cmd/fanseal/bench [--quick] [--recipients N] [--json FILE] [--plot FILE]
        [--cpuprofile FILE] [--memprofile FILE] [--pprof ADDR [--pprof-public]]
`

// benchHelp is the rest of bench's --help; TestHelpMatchesFlags checks it
// against the flags.
const benchHelp = `
Measure fanseal's hot paths on generated keys, nothing to set up: sealing a
32-byte key for 2, 5, 10 and 20 recipients (and --recipients) with every
strategy, opening as the last recipient, ledger encryption, key exchange
rounds, set commitments, signature verification and batched sending over
loopback TCP. Each table has a legend that defines its terms; the summary at
the end says which ratios compare like with like, and against which
baseline. A full run takes about a minute.

Options:
        --quick              A run of a few seconds: short cells, small
                             sections.
        --recipients N       Measure sealing for N recipients too (default 100;
                             0: none; at most 10000).
        --json FILE          Write every figure, and the machine's facts, as
                             JSON to FILE.
        --plot FILE          Draw seal latency against recipients, one panel
                             per suite, to FILE (.png or .svg).
        --cpuprofile FILE    Write a CPU profile of the run to FILE (go tool
                             pprof reads it).
        --memprofile FILE    Write a heap profile at the end of the run to FILE.
        --pprof ADDR         Serve live profiles under /debug/pprof/ on ADDR, a
                             loopback address such as 127.0.0.1:6060.
        --pprof-public       Allow --pprof on an address that is not loopback.
    -h, --help               Print this help.

When an output file is "-" (standard output), the tables go to standard
error.

` + cli.OutputRule + `

Examples:
    $ go run ./cmd/fanseal/bench --quick
    $ go run ./cmd/fanseal/bench --recipients 0 --json bench.json --plot bench.svg
    $ go run ./cmd/fanseal/bench --cpuprofile cpu.prof
`

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

// runBench runs the benchmark: the flags, the profiles and the output
// files around bench.Run.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
	fs := cli.NewFlags("bench")
	o := benchFlags(fs)
	if _, err := cli.ParseFlags(fs, args, 0); err != nil {
		return err
	}
	if o.extra < 0 || o.extra > fanseal.MaxRecipients {
		return fmt.Errorf("%w: --recipients must be 0 to %d", cli.ErrUsage, fanseal.MaxRecipients)
	}
	if o.plotOut != "" && !strings.HasSuffix(o.plotOut, ".png") && !strings.HasSuffix(o.plotOut, ".svg") {
		return fmt.Errorf("%w: --plot needs a .png or .svg file name", cli.ErrUsage)
	}
	outs, abort, err := cli.StartOutputs(stdout, [2]string{"--json", o.jsonOut}, [2]string{"--plot", o.plotOut},
		[2]string{"--cpuprofile", o.cpuProfile}, [2]string{"--memprofile", o.memProfile})
	if err != nil {
		return err
	}
	defer abort()
	jsonFile, plotFile, cpuFile, memFile := outs[0], outs[1], outs[2], outs[3]
	table := cli.ReportTo(outs, stdout, stderr)
	if o.pprofAddr != "" {
		srv, addr, err := bench.ServePprof(o.pprofAddr, o.pprofPublic)
		if errors.Is(err, bench.ErrAddress) {
			return fmt.Errorf("%w: %v", cli.ErrUsage, err)
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
		if err := jsonFile.WriteJSON(rep); err != nil {
			return err
		}
	}
	if plotFile != nil {
		svg := strings.HasSuffix(o.plotOut, ".svg")
		if err := plotFile.CommitWith(func(w io.Writer) error { return bench.Plot(w, svg, rep) }); err != nil {
			return err
		}
	}
	if memFile != nil {
		runtime.GC()
		if err := memFile.CommitWith(pprof.WriteHeapProfile); err != nil {
			return err
		}
	}
	return nil
}

// tool is the program: bench's one command.
var tool = &cli.Tool{Name: "bench", Usage: benchUsage, Help: benchHelp, Run: runBench}

func main() { tool.Main() }
