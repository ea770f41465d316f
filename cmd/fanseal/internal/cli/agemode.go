package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// age's grammar: fanseal linked (or copied) under the name age reads age's
// command line and does what age does, writing age files; so does fanseal
// under its own name when its first argument is one of age's flags
// (fanseal -d ..., fanseal -r KEY ...), which is what alias age=fanseal
// gives. The work is fanseal's own encrypt --age and decrypt: only the
// grammar, its checks and age's wording of them are here.

// ageUsage is the usage of fanseal in age's grammar.
const ageUsage = `Usage:
    age [--encrypt] (-r RECIPIENT | -R PATH)... [--armor] [-o OUTPUT] [INPUT]
    age [--encrypt] --passphrase [--armor] [-o OUTPUT] [INPUT]
    age --decrypt [-i PATH | -j PLUGIN]... [-o OUTPUT] [INPUT]

Options (age's, which fanseal reads the same way):
    -e, --encrypt               Encrypt INPUT (the default).
    -d, --decrypt               Decrypt INPUT: an age file, armored or not, or a fanseal envelope.
    -o, --output OUTPUT         Write to the file OUTPUT instead of standard output.
    -a, --armor                 Write the age file as PEM-style text.
    -p, --passphrase            Encrypt to a passphrase, asked on the terminal.
    -r, --recipient RECIPIENT   Encrypt to RECIPIENT; repeatable.
    -R, --recipients-file PATH  Encrypt to every recipient in the file PATH; repeatable.
    -i, --identity PATH         Decrypt with the identity file PATH; repeatable. With -e,
                                encrypt to its identities' recipients.
    -j PLUGIN                   Use the plugin age-plugin-PLUGIN without an identity file;
                                -j batchpass reads AGE_PASSPHRASE or AGE_PASSPHRASE_FD.
    --version                   Print the version.

INPUT and OUTPUT default to standard input and output. An existing
OUTPUT is replaced only once the whole result is written and checked.

Recipients are age public keys (age1..., age1pq1...), SSH public keys
(ssh-ed25519, ssh-rsa) and plugin recipients (age1NAME1...). In recipient
and identity files, blank lines and lines starting with # are ignored, and
"-" reads one of them from standard input. Identity files hold secret keys
(AGE-SECRET-KEY-1...), an SSH private key, or a passphrase-encrypted age
file of them.

These are fanseal's files in age's format; fanseal's own commands
(fanseal encrypt, decrypt, keygen, inspect) write fanseal envelopes; see
fanseal --help.

Example:
    $ age-keygen -o key.txt
    Public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
    $ tar cz ~/data | age -r age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p > data.tar.gz.age
    $ age -d -i key.txt -o data.tar.gz data.tar.gz.age
`

// An ageKeyFlag is one -i or -j, in the order given.
type ageKeyFlag struct{ flag, value string }

// ageKeyFlags collects -i and -j in their order.
type ageKeyFlags []ageKeyFlag

func (f *ageKeyFlags) add(flag string) func(string) error {
	return func(v string) error { *f = append(*f, ageKeyFlag{flag, v}); return nil }
}

// ageOptions are age's flags.
type ageOptions struct {
	decrypt, encrypt, passphrase, armor, version bool
	out                                          string
	recipients, files                            multiFlag
	keys                                         ageKeyFlags
}

func ageFlags(fs *flag.FlagSet) *ageOptions {
	o := &ageOptions{}
	fs.BoolVar(&o.version, "version", false, "print the version")
	fs.BoolVar(&o.decrypt, "d", false, "decrypt")
	fs.BoolVar(&o.decrypt, "decrypt", false, "decrypt")
	fs.BoolVar(&o.encrypt, "e", false, "encrypt")
	fs.BoolVar(&o.encrypt, "encrypt", false, "encrypt")
	fs.BoolVar(&o.passphrase, "p", false, "passphrase")
	fs.BoolVar(&o.passphrase, "passphrase", false, "passphrase")
	fs.StringVar(&o.out, "o", "", "output file")
	fs.StringVar(&o.out, "output", "", "output file")
	fs.BoolVar(&o.armor, "a", false, "armor")
	fs.BoolVar(&o.armor, "armor", false, "armor")
	fs.Var(&o.recipients, "r", "recipient")
	fs.Var(&o.recipients, "recipient", "recipient")
	fs.Var(&o.files, "R", "recipients file")
	fs.Var(&o.files, "recipients-file", "recipients file")
	fs.Func("i", "identity file", o.keys.add("-i"))
	fs.Func("identity", "identity file", o.keys.add("-i"))
	fs.Func("j", "plugin", o.keys.add("-j"))
	return o
}

// isAgeGrammar reports whether args, fanseal's arguments, are age's: they
// start with one of age's flags rather than a fanseal command.
func isAgeGrammar(args []string) bool {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") || args[0] == "-" {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
	switch name {
	case "h", "help", "version":
		return false // fanseal's own help and version
	}
	fs := NewFlags("age")
	ageFlags(fs)
	return fs.Lookup(name) != nil
}

// runAge runs age's command line, as the program prog ("age", or
// "fanseal" for age's grammar under fanseal's name), and returns the exit
// status. Usage and errors go to standard error, as age writes them.
func runAgeCommand(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	usage := strings.ReplaceAll(ageUsage, "    age ", "    "+prog+" ")
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 1
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: error: internal error: %v\n", prog, r)
			status = 1
		}
	}()
	fs := NewFlags(prog)
	o := ageFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
			return 0
		}
		fmt.Fprintf(stderr, "%s: error: %v\n%s", prog, err, usage)
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	err := o.check(fs.Args())
	if err == nil {
		warnAgeDuplicates(prog, stderr, o)
		if o.decrypt {
			err = decrypt(o.decryptArgs(fs.Args()), stdin, stdout, stderr)
		} else {
			err = o.encryptAge(fs.Args(), stdin, stdout, stderr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %s\n", prog, message(err))
		return 1
	}
	return 0
}

// check refuses what age refuses, in age's order, before anything is read.
func (o *ageOptions) check(pos []string) error {
	switch {
	case len(pos) > 1 && strings.HasPrefix(pos[1], "-"):
		return fmt.Errorf("too many INPUT arguments: %q: the input file must be specified after all flags", pos)
	case len(pos) > 1:
		return fmt.Errorf("too many INPUT arguments: %q: only a single input file may be specified at a time", pos)
	}
	if o.decrypt {
		switch {
		case o.encrypt:
			return errors.New("-e/--encrypt can't be used with -d/--decrypt")
		case o.armor:
			return errors.New("-a/--armor can't be used with -d/--decrypt: armored files are detected automatically; try again without -a/--armor")
		case o.passphrase:
			return errors.New("-p/--passphrase can't be used with -d/--decrypt: passphrase-encrypted files are detected automatically")
		case len(o.recipients) > 0:
			return errors.New("-r/--recipient can't be used with -d/--decrypt: did you mean -i/--identity, for a secret key?")
		case len(o.files) > 0:
			return errors.New("-R/--recipients-file can't be used with -d/--decrypt: did you mean -i/--identity, for a secret key?")
		}
		return nil
	}
	switch {
	case len(o.keys) > 0 && !o.encrypt:
		return errors.New("-i/--identity and -j can't be used in encryption mode unless symmetric encryption is explicitly selected with -e/--encrypt: did you forget -d/--decrypt?")
	case len(o.recipients)+len(o.files)+len(o.keys) == 0 && !o.passphrase:
		return errors.New("missing recipients: did you forget to specify -r/--recipient, -R/--recipients-file or -p/--passphrase?")
	case len(o.recipients) > 0 && o.passphrase:
		return errors.New("-p/--passphrase can't be combined with -r/--recipient")
	case len(o.files) > 0 && o.passphrase:
		return errors.New("-p/--passphrase can't be combined with -R/--recipients-file")
	case len(o.keys) > 0 && o.passphrase:
		return errors.New("-p/--passphrase can't be combined with -i/--identity and -j")
	}
	return nil
}

// warnAgeDuplicates warns, as age does, of a recipient, recipients file or
// identity file given more than once, once each; decrypt warns of its own
// identity files.
func warnAgeDuplicates(prog string, stderr io.Writer, o *ageOptions) {
	if o.decrypt {
		return
	}
	var ids []string
	for _, k := range o.keys {
		if k.flag == "-i" {
			ids = append(ids, k.value)
		}
	}
	warnRepeated(prog, stderr, "recipient", o.recipients)
	warnRepeated(prog, stderr, "recipients file", o.files)
	warnRepeated(prog, stderr, "identity file", ids)
}

// warnRepeated warns, in age's words, of each of values (what: "identity
// file") given more than once, once each.
func warnRepeated(prog string, stderr io.Writer, what string, values []string) {
	seen := map[string]int{}
	for _, v := range values {
		if seen[v]++; seen[v] == 2 {
			fmt.Fprintf(stderr, "%s: warning: duplicate %s %q\n", prog, what, v)
		}
	}
}

// decryptArgs returns fanseal decrypt's arguments for age's -d.
func (o *ageOptions) decryptArgs(pos []string) []string {
	var args []string
	for _, k := range o.keys {
		args = append(args, k.flag, k.value)
	}
	if o.out != "" {
		args = append(args, "-o", o.out)
	}
	return append(append(args, "--"), pos...)
}

// encryptAge encrypts as age does: an age file, for the recipients of -r,
// -R, -i and -j or for a passphrase.
func (o *ageOptions) encryptAge(pos []string, stdin io.Reader, stdout, stderr io.Writer) error {
	opts := &encryptOptions{age: true, armor: o.armor, passphrase: o.passphrase, out: o.out,
		recipients: o.recipients, files: o.files}
	for _, k := range o.keys {
		if k.flag == "-i" {
			opts.identities = append(opts.identities, k.value)
		} else {
			opts.plugins = append(opts.plugins, k.value)
		}
	}
	ins := inputs(first(pos), "recipients file", opts.files)
	for _, f := range opts.identities {
		ins = append(ins, input{"identity file", f})
	}
	if err := refuseSameAsInput("-o", opts.out, stdin, stdout, ins...); err != nil {
		return err
	}
	return encryptAge(opts, pos, stdin, stdout, stderr)
}

// programName returns the name the process was run under: "age" and
// "age-keygen" select age's programs.
func programName() string {
	if len(os.Args) == 0 {
		return "fanseal"
	}
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
}
