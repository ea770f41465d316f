package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// keygenOptions are keygen's flags.
type keygenOptions struct {
	suite, out string
	public     bool // -y
	age        bool
}

func keygenFlags(fs *flag.FlagSet) *keygenOptions {
	o := &keygenOptions{}
	fs.StringVar(&o.suite, "suite", "x25519", "suite of the new identity")
	fs.StringVar(&o.out, "o", "", "output file")
	fs.StringVar(&o.out, "output", "", "output file")
	fs.BoolVar(&o.public, "y", false, "print the public keys of an identity file")
	fs.BoolVar(&o.age, "age", false, "write and print keys in age's form")
	return o
}

func keygen(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := NewFlags("keygen")
	o := keygenFlags(fs)
	pos, err := ParseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	if o.public {
		return publicKeys(o, first(pos), stdin, stdout, stderr)
	}
	if len(pos) > 0 {
		return fmt.Errorf("%w: keygen: an input file %q without -y (keygen -y INPUT prints its public keys)", ErrUsage, pos[0])
	}
	suite, err := fanseal.ParseSuite(o.suite)
	if err != nil {
		return fmt.Errorf("%w: keygen --suite: unknown suite %q (want %s)", ErrUsage, o.suite, suiteNames())
	}
	id, err := fanseal.GenerateIdentity(suite)
	if err != nil {
		return err
	}
	pub, secret, err := keyTexts(id, o.age)
	if err != nil {
		return err
	}
	out, err := createNewOutput(o.out, stdout, 0o600)
	if err != nil {
		return err
	}
	defer out.Abort()
	keyID := id.Recipient().KeyID()
	fmt.Fprintf(out, "# created: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(out, "# suite: %s\n", suite)
	fmt.Fprintf(out, "# key id: %x\n", keyID)
	fmt.Fprintf(out, "# public key: %s\n", pub)
	if _, err := fmt.Fprintf(out, "%s\n", secret); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if o.out != "" && o.out != "-" {
		fmt.Fprintln(stdout, pub)
	} else if report.IsTerminal(stdout) {
		fmt.Fprintf(stderr, "Public key: %s\n", pub)
	}
	return nil
}

// publicKeys runs keygen -y: the public keys of the identity file name
// (standard input for "" and "-") to the output, their key identifiers to
// stderr.
func publicKeys(o *keygenOptions, name string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := refuseSameAsInput("-o", o.out, stdin, stdout, input{"identity file", name}); err != nil {
		return err
	}
	var in io.Reader
	if name == "" || name == "-" {
		name, in = "standard input", stdin
	}
	ids, err := readIdentities(name, in)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, id := range ids {
		pub, _, err := keyTexts(id.Identity, o.age)
		if err != nil {
			return fmt.Errorf("%s: %w", id.src, err)
		}
		fmt.Fprintln(&b, pub)
	}
	out, err := createOutput(o.out, stdout, 0o666)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := io.WriteString(out, b.String()); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	for _, id := range ids {
		keyID := id.Recipient().KeyID()
		fmt.Fprintf(stderr, "Key id: %x (%s, %s)\n", keyID, id.Suite(), id.src)
	}
	return nil
}

// suiteNames lists the suites: "p256, x25519, secp256k1 or mlkem768x25519".
func suiteNames() string {
	names := make([]string, len(fanseal.Suites))
	for i, s := range fanseal.Suites {
		names[i] = s.String()
	}
	return orList(names)
}

// keyTexts returns the text forms of id's recipient and of id, fanseal's
// or, with age set, age's (age1…, AGE-SECRET-KEY-1…), which age reads too.
func keyTexts(id *fanseal.Identity, age bool) (pub, secret string, err error) {
	if !age {
		if pub = id.Recipient().String(); pub == "" {
			return "", "", errors.New("a plugin identity has no public key fanseal can print: the plugin (age-plugin-NAME) prints its recipient")
		}
		return pub, id.String(), nil
	}
	pub, err = id.Recipient().AgeString()
	if err == nil {
		secret, err = id.AgeString()
	}
	if err != nil {
		return "", "", fmt.Errorf("--age: age has no form for %s keys (only x25519 and mlkem768x25519)", id.Suite())
	}
	return pub, secret, nil
}
