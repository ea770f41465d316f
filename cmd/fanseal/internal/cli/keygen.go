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
	pq         bool // -pq: the post-quantum suite, as age-keygen -pq
	age        bool
}

func keygenFlags(fs *flag.FlagSet) *keygenOptions {
	o := &keygenOptions{}
	fs.StringVar(&o.suite, "suite", "x25519", "suite of the new identity")
	fs.BoolVar(&o.pq, "pq", false, "a post-quantum (mlkem768x25519) identity")
	fs.StringVar(&o.out, "o", "", "output file")
	fs.StringVar(&o.out, "output", "", "output file")
	fs.BoolVar(&o.public, "y", false, "print the public keys of an identity file")
	fs.BoolVar(&o.age, "age", false, "write and print keys in age's form only")
	return o
}

func keygen(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := NewFlags("keygen")
	o := keygenFlags(fs)
	pos, err := ParseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	suiteGiven := false
	fs.Visit(func(f *flag.Flag) { suiteGiven = suiteGiven || f.Name == "suite" })
	switch {
	case o.pq && o.public:
		return fmt.Errorf("%w: keygen: -pq and -y: -y prints the public keys of an existing identity, whatever its suite; leave out -pq", ErrUsage)
	case o.pq && suiteGiven && o.suite != fanseal.MLKEM768X25519.String():
		return fmt.Errorf("%w: keygen: -pq and --suite %s: -pq is --suite mlkem768x25519; give one of them", ErrUsage, o.suite)
	case o.pq:
		o.suite = fanseal.MLKEM768X25519.String()
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
	return newKey(suite, o.age, o.out, stdout, stderr, func(w io.Writer, id *fanseal.Identity) {
		fmt.Fprintf(w, "# suite: %s\n", suite)
		fmt.Fprintf(w, "# key id: %x\n", id.Recipient().KeyID())
	})
}

// newKey generates an identity of suite and writes it, as age-keygen
// writes a key, to the file out (which must not exist) or to standard
// output: "# created:" and any more comment lines, "# public key:", then
// the secret key. The public key goes to standard error too, unless the
// key goes to a terminal, where it is already shown. Keys of the suites
// age has are in age's spelling; onlyAge refuses the others.
func newKey(suite fanseal.Suite, onlyAge bool, out string, stdout, stderr io.Writer, comments func(io.Writer, *fanseal.Identity)) error {
	id, err := fanseal.GenerateIdentity(suite)
	if err != nil {
		return err
	}
	pub, secret, err := keyTexts(id, onlyAge)
	if err != nil {
		return err
	}
	o, err := createNewOutput(out, stdout, 0o600)
	if err != nil {
		return err
	}
	defer o.Abort()
	fmt.Fprintf(o, "# created: %s\n", time.Now().Format(time.RFC3339))
	if comments != nil {
		comments(o, id)
	}
	fmt.Fprintf(o, "# public key: %s\n", pub)
	if _, err := fmt.Fprintf(o, "%s\n", secret); err != nil {
		return err
	}
	if err := o.Commit(); err != nil {
		return err
	}
	if (out != "" && out != "-") || !report.IsTerminal(stdout) {
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
	ids, err := readKeygenInput(name, stdin)
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

// keyTexts returns the text forms of id's recipient and of id: age's
// (age1…, AGE-SECRET-KEY-1…) for the suites age has, which one key file then
// serves both programs, and fanseal's for the others, which onlyAge
// refuses.
func keyTexts(id *fanseal.Identity, onlyAge bool) (pub, secret string, err error) {
	pub, err = id.Recipient().AgeString()
	if err == nil {
		secret, err = id.AgeString()
	}
	if err == nil {
		return pub, secret, nil
	}
	if onlyAge {
		return "", "", fmt.Errorf("--age: age has no form for %s keys (only x25519 and mlkem768x25519)", id.Suite())
	}
	if pub = recipientText(id.Recipient()); pub == "" {
		return "", "", errors.New("a plugin identity has no public key fanseal can print: the plugin (age-plugin-NAME) prints its recipient")
	}
	return pub, id.String(), nil
}

// recipientText is r as keygen writes it: in age's spelling where age has
// one, in fanseal's otherwise.
func recipientText(r *fanseal.Recipient) string {
	if s, err := r.AgeString(); err == nil {
		return s
	}
	return r.String()
}
