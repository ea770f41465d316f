package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fanseal/fanseal"
)

// age-keygen's grammar: fanseal linked under the name age-keygen generates
// and converts keys as age-keygen does, in age's spelling.

// ageKeygenUsage is the usage of fanseal run as age-keygen.
const ageKeygenUsage = `Usage:
    age-keygen [-pq] [-o OUTPUT]
    age-keygen -y [-o OUTPUT] [INPUT]

Options (age-keygen's, which fanseal reads the same way):
    -pq                  Generate a post-quantum key (ML-KEM-768 + X25519).
    -o, --output OUTPUT  Write the key to the file OUTPUT, which must not exist.
    -y                   Print the recipients (public keys) of an identity file.
    --version            Print the version.

A new key goes to standard output or OUTPUT, after "# created:" and
"# public key:" comment lines; the public key goes to standard error too,
unless the key goes to a terminal. With -y, the identity file INPUT (or
standard input) is read and its recipients are written, one per line.

Example:
    $ age-keygen -o key.txt
    Public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
    $ age-keygen -y key.txt
    age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
`

// runAgeKeygen runs age-keygen's command line as the program prog and
// returns the exit status.
func runAgeKeygen(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: error: internal error: %v\n", prog, r)
			status = 1
		}
	}()
	fs := NewFlags(prog)
	var out string
	var pq, convert, version bool
	fs.BoolVar(&version, "version", false, "print the version")
	fs.BoolVar(&pq, "pq", false, "post-quantum")
	fs.BoolVar(&convert, "y", false, "convert")
	fs.StringVar(&out, "o", "", "output file")
	fs.StringVar(&out, "output", "", "output file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, ageKeygenUsage)
			return 0
		}
		fmt.Fprintf(stderr, "%s: error: %v\n%s", prog, err, ageKeygenUsage)
		return 2
	}
	if version {
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	var err error
	switch {
	case fs.NArg() > 1 || (fs.NArg() == 1 && !convert):
		err = errors.New("too many arguments")
	case pq && convert:
		err = errors.New("-pq cannot be used with -y")
	case convert:
		err = ageRecipients(first(fs.Args()), out, stdin, stdout)
	default:
		suite := fanseal.X25519
		if pq {
			suite = fanseal.MLKEM768X25519
		}
		err = newKey(suite, true, out, stdout, stderr, nil)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %s\n", prog, message(err))
		return 1
	}
	return 0
}

// ageRecipients writes the recipients of the identity file name (standard
// input for "" and "-"), in age's spelling, one per line, to out.
func ageRecipients(name, out string, stdin io.Reader, stdout io.Writer) error {
	ids, err := readKeygenInput(name, stdin)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, id := range ids {
		pub, _, err := keyTexts(id.Identity, true)
		if err != nil {
			return fmt.Errorf("%s: %w", id.src, err)
		}
		fmt.Fprintln(&b, pub)
	}
	o, err := createNewOutput(out, stdout, 0o666)
	if err != nil {
		return err
	}
	defer o.Abort()
	if _, err := io.WriteString(o, b.String()); err != nil {
		return err
	}
	return o.Commit()
}

// readKeygenInput reads the identities of keygen -y's INPUT: the file
// name, or standard input for "" and "-".
func readKeygenInput(name string, stdin io.Reader) ([]*namedIdentity, error) {
	if name == "" || name == "-" {
		return readIdentities(stdinName, stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("failed to open input file %q: %v", name, unwrapPath(err))
	}
	defer f.Close()
	return readIdentities(name, f)
}
