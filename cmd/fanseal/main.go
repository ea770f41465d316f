// Command fanseal seals files and streams for many recipients, and
// measures how fast it does so.
//
// Usage:
//
//	fanseal keygen [--suite SUITE] [--age] [-o OUTPUT]
//	fanseal keygen -y [--age] [-o OUTPUT] [INPUT]
//	fanseal encrypt (-r RECIPIENT | -R PATH | -i PATH)... [-a] [--anonymous] [-v] [-o OUTPUT] [INPUT]
//	fanseal encrypt --age (-r RECIPIENT | -R PATH | -i PATH)... [-a] [-o OUTPUT] [INPUT]
//	fanseal decrypt [-i PATH]... [-j PLUGIN]... [-o OUTPUT] [INPUT]
//	fanseal inspect [--json] [-r RECIPIENT]... [-R PATH]... [-i PATH]... [INPUT]
//	fanseal bench [--quick] [--recipients N] [--json FILE] [--plot FILE] ...
//	fanseal sim synchronizer|ledger|dkg [flags]
//	fanseal version
//
// fanseal help COMMAND explains a command, its flags and examples.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// A command is one of fanseal's subcommands.
type command struct {
	name    string
	summary string // one line for fanseal --help
	usage   string // the usage lines, one per form, without "Usage:"
	help    string // what follows the usage in the command's help: what it does, options, examples
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// commands lists the subcommands in the order fanseal --help shows them.
var commands = []*command{
	{name: "keygen", summary: "generate an identity (a secret key), or print the public keys of one", usage: keygenUsage, help: keygenHelp, run: keygen},
	{name: "encrypt", summary: "seal a file or standard input for every recipient", usage: encryptUsage, help: encryptHelp, run: encrypt},
	{name: "decrypt", summary: "open an envelope with an identity", usage: decryptUsage, help: decryptHelp, run: decrypt},
	{name: "inspect", summary: "say what an envelope holds and who it is for, without a key", usage: inspectUsage, help: inspectHelp, run: inspect},
	{name: "bench", summary: "measure fanseal's hot paths on this machine", usage: benchUsage, help: benchHelp, run: runBench},
	{name: "sim", summary: "run an end-to-end workload before and after fanseal, and compare", usage: simUsageLine, help: simHelp, run: simulate},
	{name: "version", summary: "print the version, the build's revision, Go's version and the CPU path", usage: versionUsage, help: versionHelp, run: version},
}

// commandNamed returns the command called name, or nil.
func commandNamed(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// fullHelp returns the help of c: its usage, then the rest.
func (c *command) fullHelp() string {
	return "Usage:\n" + indent(c.usage) + c.help
}

// usageLines returns the usage of c as one block for an error message.
func (c *command) usageLines() string {
	return "Usage:\n" + indent(c.usage)
}

// indent puts four spaces before every line of s.
func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l)
	}
	return b.String() + "\n"
}

// globalHelp is what fanseal --help prints.
func globalHelp() string {
	var b strings.Builder
	b.WriteString("fanseal seals one payload for many recipients; each opens it with one key agreement.\n\nUsage:\n")
	for _, c := range commands {
		b.WriteString(indent(c.usage))
	}
	b.WriteString("\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "    %-9s %s\n", c.name, c.summary)
	}
	b.WriteString(globalNotes)
	return b.String()
}

const globalNotes = `
fanseal help COMMAND, or fanseal COMMAND --help, explains a command: every
flag, in its short and long form, and examples. fanseal --version prints the
version.

INPUT and OUTPUT default to standard input and output; "-" names them too.
Keys and files follow age's conventions: -r takes a public key, -R a file of
them, -i an identity file, # starts a comment line. age's X25519 and
ML-KEM-768+X25519 keys (age1..., age1pq1..., AGE-SECRET-KEY-...) are the same
keys as fanseal's x25519 and mlkem768x25519 ones in another spelling, and work
wherever fanseal reads keys. fanseal decrypt opens age files too, with
age's SSH, plugin and passphrase keys as well, and encrypt --age writes
age files, which age opens; fanseal's own envelopes are not age's format.

` + outputRule + `

Examples:
    $ fanseal keygen -o alice.key
    fanseal_x25519_...
    $ fanseal encrypt -r fanseal_x25519_... -R team.txt -o report.fsl report.pdf
    $ fanseal decrypt -i alice.key -o report.pdf report.fsl
    $ fanseal inspect -R team.txt report.fsl
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
		fmt.Fprint(stderr, globalHelp())
		return 1
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, globalHelp())
		return 0
	case "-version", "--version":
		args[0] = "version"
	case "help":
		if len(args) == 1 {
			fmt.Fprint(stdout, globalHelp())
			return 0
		}
		if c := commandNamed(args[1]); c != nil && len(args) == 2 {
			fmt.Fprint(stdout, c.fullHelp())
			return 0
		}
		fmt.Fprintf(stderr, "fanseal: error: help %s: unknown command; %s\n", strings.Join(args[1:], " "), unknownCommand)
		return 1
	}
	c := commandNamed(args[0])
	if mode, ok := ageModes[args[0]]; ok && c == nil {
		fmt.Fprintf(stderr, "fanseal: error: %s: fanseal names its commands; to %s, run fanseal %s (see fanseal %s --help)\n", args[0], mode, mode, mode)
		return 1
	}
	if c == nil {
		fmt.Fprintf(stderr, "fanseal: error: unknown command %q; %s\n", args[0], unknownCommand)
		return 1
	}
	err := c.run(args[1:], stdin, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, c.fullHelp())
		return 0
	}
	fmt.Fprintf(stderr, "fanseal: error: %s\n", message(err))
	if errors.Is(err, errUsage) {
		fmt.Fprint(stderr, c.usageLines())
		fmt.Fprintf(stderr, "fanseal: see fanseal %s --help\n", c.name)
	}
	return 1
}

// unknownCommand lists the commands, for an unknown one.
var unknownCommand = func() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return "want " + orList(names) + "; see fanseal --help"
}()

// orList writes names as "a, b or c".
func orList(names []string) string {
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// message returns the text of err for the error line.
func message(err error) string {
	return strings.TrimPrefix(err.Error(), errUsage.Error()+": ")
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
				return nil, fmt.Errorf("%w: %s: %s: %s", errUsage, fs.Name(), asTyped(args, name), why)
			}
			return nil, fmt.Errorf("%w: %s: flag provided but not defined: %s", errUsage, fs.Name(), asTyped(args, name))
		}
		return nil, fmt.Errorf("%w: %s: %v", errUsage, fs.Name(), err)
	}
	if fs.NArg() > max {
		return nil, fmt.Errorf("%w: %s: too many arguments: %q (flags go before the input file)", errUsage, fs.Name(), fs.Args()[max:])
	}
	return fs.Args(), nil
}

// asTyped returns the flag name (without its dash, as package flag names
// it) as the user typed it among args: --passphrase, not -passphrase.
func asTyped(args []string, name string) string {
	for _, a := range args {
		flagName, _, _ := strings.Cut(a, "=")
		if strings.TrimLeft(flagName, "-") == name {
			return flagName
		}
	}
	return "-" + name
}

// notFromAge explains the age flags that fanseal does not have.
var notFromAge = map[string]string{
	"p":          passphraseHint,
	"passphrase": passphraseHint,
	"j":          "encrypt takes a plugin's recipient (age1NAME1...) with --age -r; decrypt -j NAME asks the plugin age-plugin-NAME",
}

// passphraseHint is what decrypt -p and --passphrase say: decrypt needs
// neither.
const passphraseHint = "decrypt needs no -p: it asks the passphrase of an age file sealed to one (fanseal encrypt --age -p writes one)"

// ageModes names the command for what an age user types first: age's
// mode flags, and its encrypt flags, which age takes without a command.
var ageModes = map[string]string{
	"-d": "decrypt", "--decrypt": "decrypt", "-e": "encrypt", "--encrypt": "encrypt",
	"-r": "encrypt", "--recipient": "encrypt", "-R": "encrypt", "--recipients-file": "encrypt",
	"-a": "encrypt", "--armor": "encrypt", "-i": "decrypt", "--identity": "decrypt",
}

// multiFlag is a flag that may be repeated.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
