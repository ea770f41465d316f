// Package cli is fanseal's command line: the keygen, encrypt, decrypt,
// inspect and version commands, their flags and help, and the output rule
// by which every fanseal program writes its files.
//
// The fanseal command (cmd/fanseal) is Main. The measuring programs,
// cmd/fanseal/bench and cmd/fanseal/sim, are Tools: programs of their own,
// so that the commands people encrypt with neither link nor initialise
// what only a benchmark needs.
//
// Usage of fanseal:
//
//	fanseal keygen [--suite SUITE | --pq] [--age] [-o OUTPUT]
//	fanseal keygen -y [--age] [-o OUTPUT] [INPUT]
//	fanseal encrypt (-r RECIPIENT | -R PATH | -i PATH | -j PLUGIN)... [-a] [--identified] [-v] [-o OUTPUT] [INPUT]
//	fanseal encrypt --age (-r RECIPIENT | -R PATH | -i PATH)... [-a] [-o OUTPUT] [INPUT]
//	fanseal decrypt [-i PATH]... [-j PLUGIN]... [-o OUTPUT] [INPUT]
//	fanseal inspect [--json] [-r RECIPIENT]... [-R PATH]... [-i PATH]... [INPUT]
//	fanseal version
//
// fanseal help COMMAND explains a command, its flags and examples.
package cli

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
	program string // how it is run, where that is not "fanseal NAME"
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

The measuring programs are programs of their own, so that fanseal stays
small and starts fast. From a checkout of fanseal, go run ./cmd/fanseal/bench
measures fanseal's hot paths on this machine, and go run ./cmd/fanseal/sim
runs an end-to-end workload before and after fanseal; each has --help.

` + outputPointer + `

Examples:
    $ fanseal keygen -o alice.key
    Public key: age1...
    $ fanseal encrypt -r age1... -R team.txt -o report.fsl report.pdf
    $ fanseal decrypt -i alice.key -o report.pdf report.fsl
    $ fanseal inspect -i alice.key report.fsl
`

// ErrUsage marks errors in the command line.
var ErrUsage = errors.New("usage")

// tools names the measuring programs, which are not fanseal commands
// (Tool): what fanseal says when it is asked for one.
var tools = map[string]string{
	"bench": "./cmd/fanseal/bench",
	"sim":   "./cmd/fanseal/sim",
}

// Main runs fanseal with the process's arguments and exits with its
// status.
func Main() {
	wantSignalHandler()
	switch name := programName(); name {
	case "age":
		os.Exit(runAgeCommand(name, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "age-keygen":
		os.Exit(runAgeKeygen(name, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
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
		if len(args) == 2 && args[1] == "output" {
			fmt.Fprintln(stdout, OutputRule)
			return 0
		}
		if len(args) == 2 && tools[args[1]] != "" {
			args = args[1:] // fanseal help bench says where bench is
			break
		}
		fmt.Fprintf(stderr, "fanseal: error: help %s: unknown command; %s\n", strings.Join(args[1:], " "), unknownCommand)
		return 1
	}
	if isAgeGrammar(args) {
		return runAgeCommand("fanseal", args, stdin, stdout, stderr)
	}
	c := commandNamed(args[0])
	if path := tools[args[0]]; path != "" {
		fmt.Fprintf(stderr, "fanseal: error: %s is a program of its own, so that fanseal stays small and starts fast: from a checkout of fanseal, run go run %s (see go run %s --help)\n", args[0], path, path)
		return 1
	}
	if c == nil {
		fmt.Fprintf(stderr, "fanseal: error: unknown command %q; %s\n", args[0], unknownCommand)
		return 1
	}
	return c.exec(args[1:], stdin, stdout, stderr)
}

// exec runs c with its arguments, prints its help or its error, and
// returns the exit status.
func (c *command) exec(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "fanseal: error: internal error: %v\n", r)
			status = 1
		}
	}()
	err := c.run(args, stdin, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, c.fullHelp())
		return 0
	}
	fmt.Fprintf(stderr, "fanseal: error: %s\n", message(err))
	if errors.Is(err, ErrUsage) {
		fmt.Fprint(stderr, c.usageLines())
		program := c.program
		if program == "" {
			program = "fanseal " + c.name
		}
		fmt.Fprintf(stderr, "fanseal: see %s --help\n", program)
	}
	return 1
}

// A Tool is one of fanseal's measuring programs (go run ./cmd/fanseal/bench,
// go run ./cmd/fanseal/sim): a program of one command, beside the fanseal
// command rather than in it. It reads its flags, writes its files by the
// output rule and reports its errors as fanseal's commands do.
type Tool struct {
	// Name is the tool's command name, as fanseal names it: "bench", one
	// of tools.
	Name string
	// Usage is its usage, one line per form, without "Usage:"; Help is
	// what follows the usage in its --help.
	Usage, Help string
	// Run runs the tool with its arguments. An error wrapping ErrUsage
	// prints the usage after it, and flag.ErrHelp prints the help.
	Run func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// Program returns how t is run: "go run ./cmd/fanseal/bench".
func (t *Tool) Program() string { return "go run " + tools[t.Name] }

// Main runs t with the process's arguments and exits with its status.
func (t *Tool) Main() {
	// A tool runs for seconds or minutes: it installs the handler before
	// its work, so that the goroutines it counts before a run (sim's
	// soak) already include the handler's.
	removeOnSignal()
	os.Exit(t.Exec(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exec runs t with args, as Main does, and returns the exit status.
func (t *Tool) Exec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &command{name: t.Name, program: t.Program(), usage: t.Usage, help: t.Help, run: t.Run}
	return c.exec(args, stdin, stdout, stderr)
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
	return strings.TrimPrefix(err.Error(), ErrUsage.Error()+": ")
}

// NewFlags returns a FlagSet that reports errors instead of exiting.
func NewFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// ParseFlags parses args and returns the positional arguments, at most max.
func ParseFlags(fs *flag.FlagSet, args []string, max int) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			if why, ok := notFromAge[strings.TrimPrefix(name, "-")]; ok {
				return nil, fmt.Errorf("%w: %s: %s: %s", ErrUsage, fs.Name(), asTyped(args, name), why)
			}
			return nil, fmt.Errorf("%w: %s: flag provided but not defined: %s", ErrUsage, fs.Name(), asTyped(args, name))
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrUsage, fs.Name(), err)
	}
	if fs.NArg() > max {
		return nil, fmt.Errorf("%w: %s: too many arguments: %q (flags go before the input file)", ErrUsage, fs.Name(), fs.Args()[max:])
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
}

// passphraseHint is what decrypt -p and --passphrase say: decrypt needs
// neither.
const passphraseHint = "decrypt needs no -p: it asks the passphrase of an age file sealed to one (fanseal encrypt --age -p writes one)"

// multiFlag is a flag that may be repeated.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
