// Sim runs an end-to-end workload before and after fanseal, and compares:
//
//	go run ./cmd/fanseal/sim synchronizer|ledger|dkg [flags]
//
// It is a program of its own, not a fanseal command, so that the fanseal
// command neither links nor initialises what only the simulations need.
// go run ./cmd/fanseal/sim --help explains the workloads and their flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/cli"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/sim"
	"github.com/fanseal/fanseal/kex"
	"github.com/fanseal/fanseal/verify"
)

// simUsageLine is sim's usage.
const simUsageLine = `go run ./cmd/fanseal/sim synchronizer|ledger|dkg [flags]
`

// simHelp is the rest of sim's help; TestHelpMatchesFlags checks
// it against every workload's flags.
const simHelp = `
sim runs an end-to-end workload twice in one process, the "before"
(baseline: what the motivating systems did) and the "after" (fanseal), in
interleaved rounds so that the machine's load hits both, and reports what
changed: latency percentiles, throughput, and the share of each side's CPU
spent in cryptography, read from a CPU profile of the run.

Workloads:
    synchronizer  A synchronizer's transactions (Canton-style). 22 participants
                  (20 validators, a sender, a receiver), each with a long-term
                  key, a signing key (Ed25519 unless --signature p256), a
                  Keyring, a SessionCache (with --strategy precomputed, the
                  sender also a Precomputer) and running ACS commitments. The
                  sender seals each of a transaction's 2 views for its 22
                  informees (44 stanzas) and signs the request; the mediator and
                  every informee verify it; each informee opens its views (in
                  one Opener.OpenAll), checks them, and sends a signed
                  confirmation to the mediator over a real loopback TCP
                  connection through a drain.Sender; the mediator verifies a
                  transaction's confirmations together (one batch verification)
                  and emits the verdict; informees apply the transaction's
                  contracts to their running commitments, and every 100
                  transactions exchange per-counter-participant commitments. At
                  the end an auditor (the receiver, with a fresh Keyring and no
                  cache) reads the views of the last 128 transactions, 64
                  envelopes to an OpenAll. Baseline: sequential sealing with a
                  fresh ephemeral key per stanza, no caches, keyrings or pools,
                  signatures verified one at a time, one TCP frame per
                  confirmation, commitments recomputed from scratch, one
                  OpenBytes per envelope.
    ledger        A confidential ledger (CCF-style). Workers execute
                  transactions with a public and a private write set (4
                  entries of 64 B to 1 KiB each); the private one is sealed
                  with ledger.Encryptor under a TxID-derived IV and appended to
                  a ledger file (buffered, synced after every signature
                  transaction, every 100 transactions). Halfway through the
                  secret is rekeyed; at the end the entries after the last
                  signature are rolled back, and an auditor reads the file
                  with only the ledger secrets and checks every entry under
                  its historical secret. Baseline: a new AES-GCM context per
                  transaction; fanseal: retained contexts.
    dkg           A threshold group's key exchange round (keep-core-style), at
                  64 and 100 members. Every member generates one key pair per
                  peer and broadcasts them in one message; every member
                  unmarshals every message, derives its pairwise keys and
                  exchanges one box with each peer. Baseline: every key parsed
                  on receipt (eager); fanseal: only the one it needs (lazy).

Options:
    --duration D      measuring time of the whole run, both sides (default 20s;
                      dkg 30s; --quick 3s). A run keeps to it, and passes it
                      only where one operation of each size and side takes
                      longer (an eager dkg round of 100 members can take
                      half a minute on two cores); the report says so
    --rounds N        A/B rounds: each of the 2N slots gets an equal share of
                      the time left, a side's first at least D/(2N), and a
                      slot starts an operation only if the last one like it
                      would end in time (default 6; dkg 3; --quick 2)
    --rate R          open loop: offer R operations a second whatever their
                      latency; latencies count from when each was due
                      (default: a closed loop at saturation). Rx (2x, 5x)
                      offers R times the capacity that a closed loop of
                      fanseal's side measures first, on a world of its own,
                      for a tenth of the duration (1 to 10 s). An operation
                      due while --concurrency are in flight is shed: refused
                      at once, counted, never started; the report shows
                      offered, admitted, shed and completed operations, and
                      the latency of the admitted ones
    --concurrency N   operations in flight: a closed loop keeps N going
                      (synchronizer: 8 transactions; ledger: one per
                      worker); an open loop admits at most N (default 64)
    --soak            run fanseal's side (the baseline's with --baseline)
                      for the whole duration (default 30m; --quick 20s),
                      sample heap, goroutines and open files every second
                      into the JSON and the plot, and check, after a warm-up
                      of a tenth of the run: the heap's high-water mark in
                      the last half at most 1.1x the first half's;
                      goroutines and open files back to their count before
                      the run (open files where the system counts them,
                      /proc; elsewhere that check says "not measured" and
                      is never taken as met); p99 latency in the last window (a minute, or
                      a tenth of a shorter run) at most 1.5x the first's;
                      and no verdict or entry lost
    --seed N          the generated work; both sides get the same (default 1)
    --faults          inject faults: malformed envelopes and bad signatures
                      (synchronizer), a dropped TCP connection, a participant
                      missing a contract; a flipped bit, a moved entry, stale
                      entries and a torn write in the ledger file; a member
                      publishing a corrupt key (dkg). The report says what was
                      injected, what was detected, and that nothing was lost.
    --baseline        run only the baseline
    --after           run only fanseal
    --quick           a run of a few seconds, with small sizes
    --json FILE       write the report as JSON
    --plot FILE       draw the latency CDFs, baseline against fanseal, to a
                      .png or .svg file
    --cpuprofile FILE write the run's CPU profile (go tool pprof reads it)
    -h, --help        print this help

    synchronizer: --participants N (22), --views N (2), --interval K (100),
                  --suite p256|x25519|secp256k1 (p256),
                  --signature ed25519|p256 (ed25519: batch verification;
                  p256: ECDSA, verified in parallel),
                  --strategy sequential|parallel|shared|shared-parallel|
                  precomputed|channel (channel)
    ledger:       --workers N (GOMAXPROCS), --entries N (4), --min-size B (64),
                  --max-size B (1024), --signature-interval S (100),
                  --dir DIR (where each side makes a new directory of
                  its own for its ledger file, kept; default: one in the
                  system's temporary directory, removed afterwards),
                  --disk-rate B (bytes a second the ledger file takes, such
                  as 4M: a disk slower than the workers; default: as fast
                  as the file system)
    dkg:          --members N,N (64,100), --suite secp256k1|x25519

Percentiles from fewer than 20 samples are marked * in the report (and
few_samples in the JSON): they are rough figures.

When an output file is "-" (standard output), the report goes to standard
error.

` + cli.OutputRule + `

CPU shares: each side's goroutines carry a profile label; a sample counts
as cryptography when its innermost function is in Go's crypto packages,
golang.org/x/crypto, secp256k1, btcec, edwards25519, ed25519consensus,
blake3 or fanseal's own cryptographic packages (flat view; allocation and
GC count as runtime). The ledger adds the cumulative shares of AES-GCM and
of its key setup (aes.NewCipher, cipher.NewGCM).

The command exits with status 1 if an invariant fails (a lost verdict, an
auditor total, a fault not detected).

Examples:
    $ go run ./cmd/fanseal/sim synchronizer
    $ go run ./cmd/fanseal/sim ledger --quick --faults
    $ go run ./cmd/fanseal/sim dkg --members 100 --json dkg.json --plot dkg.svg
`

// rateFlag is --rate: operations per second ("500"), or a multiple of
// the capacity a closed loop of fanseal's side measures first ("2x").
type rateFlag struct {
	perSecond, factor float64
	text              string
}

func (r *rateFlag) String() string { return r.text }

func (r *rateFlag) Set(s string) error {
	v, multiple := strings.CutSuffix(s, "x")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a rate: want operations per second, such as 500, or a multiple of the capacity, such as 2x", s)
	}
	*r = rateFlag{text: s}
	if multiple {
		r.factor = f
	} else {
		r.perSecond = f
	}
	return nil
}

// parseBytes reads a byte count: digits with an optional k, M or G
// (powers of 1024).
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"k": 1 << 10, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30} {
		if v, ok := strings.CutSuffix(s, suffix); ok {
			s, mult = v, m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a byte count: want a positive number, with k, M or G for KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

// simWorkloads lists the workloads of sim.
var simWorkloads = []string{"synchronizer", "ledger", "dkg"}

// simOptions are the flags every workload of sim has.
type simOptions struct {
	duration                     time.Duration
	rounds                       int
	rate                         rateFlag
	conc                         int
	soak                         bool
	seed                         uint64
	faults, baseline, after      bool
	quick                        bool
	jsonOut, plotOut, cpuProfile string
}

// simFlags defines the flags of the workload name on fs and returns them
// with the function that builds the workload once they are parsed, or a
// nil function for an unknown workload.
func simFlags(name string, fs *flag.FlagSet) (*simOptions, func() (sim.Workload, error)) {
	o := &simOptions{}
	fs.DurationVar(&o.duration, "duration", 0, "measuring time of the whole run")
	fs.IntVar(&o.rounds, "rounds", 6, "A/B rounds")
	fs.Var(&o.rate, "rate", "open loop: operations per second, or a multiple of the measured capacity (2x)")
	fs.IntVar(&o.conc, "concurrency", 0, "operations in flight: kept going (closed loop) or at most (open loop)")
	fs.BoolVar(&o.soak, "soak", false, "run fanseal's side long and check that nothing grows")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the generated work")
	fs.BoolVar(&o.faults, "faults", false, "inject faults")
	fs.BoolVar(&o.baseline, "baseline", false, "run only the baseline")
	fs.BoolVar(&o.after, "after", false, "run only fanseal")
	fs.BoolVar(&o.quick, "quick", false, "a run of a few seconds")
	fs.StringVar(&o.jsonOut, "json", "", "write the report as JSON to this file")
	fs.StringVar(&o.plotOut, "plot", "", "draw latency CDFs to this .png or .svg file")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the CPU profile to this file")
	return o, simWorkloadFlags(name, fs, &o.quick)
}

// simulate runs sim.
func simulate(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: sim: name a workload: %s", cli.ErrUsage, strings.Join(simWorkloads, ", "))
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		return flag.ErrHelp
	}
	name := args[0]
	fs := cli.NewFlags("sim " + name)
	o, build := simFlags(name, fs)
	if build == nil {
		return fmt.Errorf("%w: sim: unknown workload %q (want %s)", cli.ErrUsage, name, strings.Join(simWorkloads, ", "))
	}
	if _, err := cli.ParseFlags(fs, args[1:], 0); err != nil {
		return err
	}
	if o.plotOut != "" && !strings.HasSuffix(o.plotOut, ".png") && !strings.HasSuffix(o.plotOut, ".svg") {
		return fmt.Errorf("%w: --plot needs a .png or .svg file name", cli.ErrUsage)
	}
	if o.baseline && o.after {
		return fmt.Errorf("%w: --baseline and --after together: leave both out to run both", cli.ErrUsage)
	}
	if o.conc < 0 || o.rounds < 1 || o.duration < 0 {
		return fmt.Errorf("%w: --concurrency, --rounds and --duration must be positive", cli.ErrUsage)
	}
	w, err := build()
	if err != nil {
		return fmt.Errorf("%w: sim %s: %v", cli.ErrUsage, name, err)
	}
	cfg := sim.Config{Duration: o.duration, Rounds: o.rounds, Rate: o.rate.perSecond, RateFactor: o.rate.factor, Concurrency: o.conc,
		Seed: o.seed, Faults: o.faults, Soak: o.soak}
	if cfg.Duration == 0 {
		switch {
		case o.soak && o.quick:
			cfg.Duration = 20 * time.Second
		case o.soak:
			cfg.Duration = 30 * time.Minute
		case o.quick:
			cfg.Duration = 3 * time.Second
		case name == "dkg":
			cfg.Duration = 30 * time.Second
		default:
			cfg.Duration = 20 * time.Second
		}
	}
	if !flagSet(fs, "rounds") {
		switch {
		case o.quick:
			cfg.Rounds = 2
		case name == "dkg":
			cfg.Rounds = 3 // an eager round of 100 takes seconds
		}
	}
	switch {
	case o.baseline:
		cfg.Only = []sim.Side{sim.Baseline}
	case o.after:
		cfg.Only = []sim.Side{sim.Fanseal}
	}
	outs, abort, err := cli.StartOutputs(stdout, [2]string{"--json", o.jsonOut}, [2]string{"--plot", o.plotOut}, [2]string{"--cpuprofile", o.cpuProfile})
	if err != nil {
		return err
	}
	defer abort()
	jsonFile, plotFile, cpuFile := outs[0], outs[1], outs[2]
	table := cli.ReportTo(outs, stdout, stderr)
	bar := report.NewBar(stderr, 1000)
	cfg.Progress = func(f float64) { bar.To(int(f * 1000)) }
	res, err := sim.Run(context.Background(), w, cfg)
	bar.Done()
	if res == nil {
		return err
	}
	sim.Print(table, res)
	// The outputs are written even when an invariant failed: they show why.
	var errs []error
	if jsonFile != nil {
		errs = append(errs, jsonFile.WriteJSON(res))
	}
	if plotFile != nil {
		svg := strings.HasSuffix(o.plotOut, ".svg")
		errs = append(errs, plotFile.CommitWith(func(w io.Writer) error { return sim.Plot(w, svg, res) }))
	}
	if cpuFile != nil {
		errs = append(errs, cpuFile.CommitWith(res.WriteProfile))
	}
	return errors.Join(append([]error{err}, errs...)...)
}

// choice returns the value that names maps v to, or an error that lists
// the names the flag called name accepts.
func choice[T any](name, v string, names map[string]T) (T, error) {
	if x, ok := names[v]; ok {
		return x, nil
	}
	var zero T
	return zero, fmt.Errorf("--%s %q: want %s", name, v, strings.Join(slices.Sorted(maps.Keys(names)), " or "))
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// simWorkloadFlags defines the workload's own flags and returns the
// function that builds it once they are parsed, or nil for an unknown
// workload.
func simWorkloadFlags(name string, fs *flag.FlagSet, quick *bool) func() (sim.Workload, error) {
	switch name {
	case "ledger":
		var o sim.LedgerOptions
		fs.IntVar(&o.Workers, "workers", 0, "workers executing transactions")
		fs.IntVar(&o.Entries, "entries", 4, "entries per write set")
		fs.IntVar(&o.MinSize, "min-size", 64, "smallest entry value")
		fs.IntVar(&o.MaxSize, "max-size", 1024, "largest entry value")
		fs.IntVar(&o.SignatureInterval, "signature-interval", 100, "transactions between signatures")
		fs.Func("disk-rate", "bytes a second the ledger file takes (a slow disk), such as 4M", func(v string) error {
			n, err := parseBytes(v)
			o.DiskRate = n
			return err
		})
		fs.StringVar(&o.Dir, "dir", "", "directory of the ledger files")
		return func() (sim.Workload, error) {
			if o.Workers < 0 || o.Entries < 1 || o.MinSize < 1 || o.MaxSize < o.MinSize || o.MaxSize > 1<<20 || o.SignatureInterval < 1 {
				return nil, errors.New("--workers, --entries, --min-size, --max-size (at most 1 MiB) and --signature-interval must be positive, --max-size at least --min-size")
			}
			return sim.Ledger(o), nil
		}
	case "dkg":
		members := fs.String("members", "64,100", "group sizes")
		suite := fs.String("suite", "secp256k1", "secp256k1 or x25519")
		return func() (sim.Workload, error) {
			var o sim.DKGOptions
			var err error
			if o.Suite, err = choice("suite", *suite, map[string]kex.Suite{"secp256k1": kex.Secp256k1, "x25519": kex.X25519}); err != nil {
				return nil, err
			}
			sizes := *members
			if *quick && !flagSet(fs, "members") {
				sizes = "16,32"
			}
			for _, s := range strings.Split(sizes, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n < 2 || n > kex.MaxMembers {
					return nil, fmt.Errorf("--members: %q is not a group size (2 to %d)", s, kex.MaxMembers)
				}
				o.Members = append(o.Members, n)
			}
			return sim.DKG(o), nil
		}
	case "synchronizer":
		var o sim.SynchronizerOptions
		fs.IntVar(&o.Participants, "participants", 22, "participants: validators, a sender and a receiver")
		fs.IntVar(&o.Views, "views", 2, "views per transaction")
		fs.IntVar(&o.Interval, "interval", 100, "transactions between commitment exchanges")
		suite := fs.String("suite", "p256", "the participants' key suite")
		strategy := fs.String("strategy", "channel", "fanseal's sealing strategy")
		signature := fs.String("signature", "ed25519", "the participants' signature scheme")
		return func() (sim.Workload, error) {
			var err error
			if o.Signature, err = choice("signature", *signature, map[string]verify.Scheme{"ed25519": verify.Ed25519, "p256": verify.P256}); err != nil {
				return nil, err
			}
			if o.Suite, err = fanseal.ParseSuite(*suite); err != nil || o.Suite.PostQuantum() {
				return nil, fmt.Errorf("--suite %q: want p256, x25519 or secp256k1", *suite)
			}
			if o.Strategy, err = fanseal.ParseStrategy(*strategy); err != nil {
				return nil, err
			}
			if o.Participants < 3 || o.Participants > 1000 || o.Views < 1 || o.Views > 16 || o.Interval < 1 {
				return nil, errors.New("--participants must be 3 to 1000, --views 1 to 16, --interval positive")
			}
			if *quick && !flagSet(fs, "interval") {
				o.Interval = 20
			}
			if *quick {
				o.CacheSize = 1000 // full, and steady, sooner
			}
			return sim.Synchronizer(o), nil
		}
	}
	return nil
}

// tool is the program: sim's one command.
var tool = &cli.Tool{Name: "sim", Usage: simUsageLine, Help: simHelp, Run: simulate}

func main() { tool.Main() }
