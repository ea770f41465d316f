// Command fanseal seals files and streams for many recipients, and
// measures how fast it does so.
//
// Usage:
//
//	fanseal keygen [--suite SUITE] [--age] [-o OUTPUT]
//	fanseal keygen [--age] -y IDENTITY_FILE
//	fanseal encrypt (-r RECIPIENT | -R RECIPIENTS_FILE)... [-a] [-o OUTPUT] [INPUT]
//	fanseal decrypt -i IDENTITY_FILE... [-o OUTPUT] [INPUT]
//	fanseal inspect [--json] [INPUT]
//	fanseal bench [--quick] [--recipients N] [--json FILE] [--plot FILE]
//	fanseal sim synchronizer|ledger|dkg [--quick] [--faults] [--json FILE] [--plot FILE]
//
// Run fanseal --help for the details and examples.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `fanseal seals one payload for many recipients; each opens it with one key agreement.

Usage:
    fanseal keygen [--suite SUITE] [--age] [-o OUTPUT]
    fanseal keygen [--age] -y IDENTITY_FILE
    fanseal encrypt (-r RECIPIENT | -R RECIPIENTS_FILE)... [-a] [--anonymous] [-o OUTPUT] [INPUT]
    fanseal decrypt -i IDENTITY_FILE... [-o OUTPUT] [INPUT]
    fanseal inspect [--json] [INPUT]
    fanseal bench [--quick] [--recipients N] [--json FILE] [--plot FILE.png|.svg]
                  [--cpuprofile FILE] [--memprofile FILE] [--pprof ADDR [--pprof-public]]
    fanseal sim synchronizer|ledger|dkg [--quick] [--duration D] [--faults]
                  [--json FILE] [--plot FILE.png|.svg] [--cpuprofile FILE]

Commands:
    keygen     Generate an identity (a private key) and print its public key.
               --suite p256|x25519|secp256k1|mlkem768x25519 (default x25519).
               -y prints the public keys of an existing identity file.
               --age writes and prints the keys in age's form (age1...,
               AGE-SECRET-KEY-1...; x25519 and mlkem768x25519 only).
    encrypt    Seal INPUT (default: standard input) for every recipient.
               -r takes a public key (fanseal_..., or age's age1... and
               age1pq1...), -R a file of them, one per line, # for comments
               (age's recipients files work); both may repeat. -a writes
               text armor.
               --anonymous leaves out the key identifiers, so the envelope
               does not say who can open it (opening then tries every stanza).
    decrypt    Open INPUT with the identity files given with -i (fanseal's, or
               age-keygen's for x25519 and mlkem768x25519). Armored input
               is detected. With -o, the output file appears only once the
               whole payload has authenticated (see "Output files").
    inspect    Describe an envelope without opening it: version, cipher,
               recipients and their key identifiers, payload size.
    bench      Measure fanseal's hot paths on generated keys, nothing to set up:
               sealing a 32-byte key for 2 to 20 (and --recipients) recipients
               with every strategy (p50, p99, speedup over sequential), opening
               as the last recipient, ledger encryption, key exchange rounds,
               set commitments, signature verification (batched and parallel,
               against a loop) and batched sending over loopback TCP. --quick takes a few seconds; --json writes every
               figure with the machine's facts; --plot draws latency against
               recipients. --pprof serves live profiles on a loopback address.
    sim        Run an end-to-end workload (a synchronizer's transactions, a
               confidential ledger, a group key exchange round) twice, as the
               systems that motivated fanseal did and with fanseal, and report
               what changed: latencies, throughput, CPU shares of cryptography.
               fanseal sim --help explains each workload and flag.

INPUT and OUTPUT default to standard input and output; "-" names them too.
keygen -o never replaces an existing file: losing a secret key is worse
than any error.
Post-quantum (mlkem768x25519) and classical recipients cannot be mixed.
age's X25519 and ML-KEM-768+X25519 keys are the same keys as fanseal's
x25519 and mlkem768x25519 ones in another spelling; age's SSH, plugin and
passphrase keys are not supported. Envelopes are fanseal's, not age's.

` + outputRule + `

Examples:
    $ fanseal keygen -o alice.key
    fanseal_x25519_...
    $ fanseal encrypt -r fanseal_x25519_... -R team.txt -o report.fsl report.pdf
    $ fanseal decrypt -i alice.key -o report.pdf report.fsl
    $ tar cz docs | fanseal encrypt -R team.txt -a > docs.tgz.fsl.txt
    $ fanseal inspect report.fsl
    $ fanseal encrypt -R age-recipients.txt -o notes.fsl notes.txt
    $ fanseal decrypt -i ~/.config/age/keys.txt -o notes.txt notes.fsl
    $ fanseal keygen --age -y alice.key           # alice's key as age1...
`

// errUsage marks errors in the command line.
var errUsage = errors.New("usage")

func main() {
	removeOnSignal()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "fanseal: error: internal error: %v\n", r)
			status = 1
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 1
	}
	cmds := map[string]func([]string, io.Reader, io.Writer, io.Writer) error{
		"keygen":  keygen,
		"encrypt": encrypt,
		"decrypt": decrypt,
		"inspect": inspect,
		"bench":   runBench,
		"sim":     simulate,
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "fanseal: error: unknown command %q (want keygen, encrypt, decrypt, inspect, bench or sim; see fanseal --help)\n", args[0])
		return 1
	}
	err := cmd(args[1:], stdin, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "fanseal: error: %s\n", strings.TrimPrefix(err.Error(), "usage: "))
	if errors.Is(err, errUsage) {
		fmt.Fprintf(stderr, "fanseal: see fanseal --help\n")
	}
	return 1
}

// newFlags returns a FlagSet that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args and returns the positional arguments, at most max.
func parseFlags(fs *flag.FlagSet, args []string, max int) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			if why, ok := notFromAge[strings.TrimPrefix(name, "-")]; ok {
				return nil, fmt.Errorf("%w: %s: -%s: %s", errUsage, fs.Name(), name, why)
			}
		}
		return nil, fmt.Errorf("%w: %s: %v", errUsage, fs.Name(), err)
	}
	if fs.NArg() > max {
		return nil, fmt.Errorf("%w: %s: too many arguments: %q (flags go before the input file)", errUsage, fs.Name(), fs.Args()[max:])
	}
	return fs.Args(), nil
}

// notFromAge explains the age flags that fanseal does not have.
var notFromAge = map[string]string{
	"p":          "passphrases (age -p, scrypt) are not supported; encrypt to a recipient with -r or -R",
	"passphrase": "passphrases (age -p, scrypt) are not supported; encrypt to a recipient with -r or -R",
	"j":          "age plugins are not supported",
}

// multiFlag is a flag that may be repeated.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
