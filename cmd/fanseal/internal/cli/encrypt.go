package cli

import (
	"bufio"
	"flag"
	"fmt"
	"io"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/armor"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// encryptOptions are encrypt's flags.
type encryptOptions struct {
	recipients, files multiFlag
	identities        multiFlag // -i: seal for the recipients of identity files
	plugins           multiFlag // -j: seal for age plugins, without recipient data
	armor, anonymous  bool
	identified        bool // --identified: key identifiers instead of tags
	verbose, age      bool
	passphrase        bool // -p: seal for a passphrase, alone
	out               string
}

func encryptFlags(fs *flag.FlagSet) *encryptOptions {
	o := &encryptOptions{}
	fs.Var(&o.recipients, "r", "recipient")
	fs.Var(&o.recipients, "recipient", "recipient")
	fs.Var(&o.files, "R", "recipients file")
	fs.Var(&o.files, "recipients-file", "recipients file")
	fs.Var(&o.identities, "i", "identity file")
	fs.Var(&o.identities, "identity", "identity file")
	fs.Var(&o.plugins, "j", "age plugin")
	fs.BoolVar(&o.armor, "a", false, "armor")
	fs.BoolVar(&o.armor, "armor", false, "armor")
	fs.BoolVar(&o.anonymous, "anonymous", false, "no key identifiers (the default)")
	fs.BoolVar(&o.identified, "identified", false, "write key identifiers")
	fs.BoolVar(&o.age, "age", false, "write an age file")
	fs.BoolVar(&o.passphrase, "p", false, "passphrase")
	fs.BoolVar(&o.passphrase, "passphrase", false, "passphrase")
	fs.BoolVar(&o.verbose, "v", false, "say who the envelope is for and what it holds")
	fs.BoolVar(&o.verbose, "verbose", false, "say who the envelope is for and what it holds")
	fs.StringVar(&o.out, "o", "", "output file")
	fs.StringVar(&o.out, "output", "", "output file")
	return o
}

func encrypt(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := NewFlags("encrypt")
	opts := encryptFlags(fs)
	pos, err := ParseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	ins := inputs(first(pos), "recipients file", opts.files)
	for _, f := range opts.identities {
		ins = append(ins, input{"identity file", f})
	}
	if err := refuseSameAsInput("-o", opts.out, stdin, stdout, ins...); err != nil {
		return err
	}
	if opts.anonymous && opts.identified {
		return fmt.Errorf("%w: --anonymous and --identified: an envelope carries key identifiers or not; leave one out", ErrUsage)
	}
	if opts.age {
		return encryptAge(opts, pos, stdin, stdout, stderr)
	}
	var list []*namedRecipient
	if opts.passphrase {
		if len(opts.recipients)+len(opts.files)+len(opts.identities)+len(opts.plugins) > 0 {
			return fmt.Errorf("%w: -p: a passphrase is alone in its envelope (as in age), since anyone with another recipient's key could open it without the passphrase: leave out -r, -R and -i, or -p", ErrUsage)
		}
		if list, err = passphraseRecipient(); err != nil {
			return err
		}
	} else {
		keysIn := newStdinUse(stdin, payloadFromStdin(pos))
		if list, err = recipientList(opts.recipients, opts.files, keysIn); err != nil {
			return err
		}
		ids, err := identityList(opts.identities, keysIn)
		if err != nil {
			return err
		}
		list = withIdentityRecipients(list, ids)
		for i, name := range opts.plugins {
			r, err := pluginRecipient(name, stderr)
			if err != nil {
				return err
			}
			list = append(list, &namedRecipient{Recipient: fanseal.NewWrappedRecipient(ageWrapper{r}, "plugin "+name), src: keySource{File: "-j " + name, Line: i + 1}})
		}
	}
	if len(list) == 0 {
		return fmt.Errorf("%w: encrypt needs at least one -r, -R, -i or -j", ErrUsage)
	}
	warnDuplicates(stderr, list)
	if err := checkSealable(list, !opts.identified); err != nil {
		return err
	}
	var tap *headerTap
	err = sealOutput(opts, pos, stdin, stdout, stderr, func(w io.Writer) io.WriteCloser { return armor.NewWriter(w) },
		func(dst io.Writer) (io.WriteCloser, error) {
			if opts.verbose {
				tap = &headerTap{w: dst}
				dst = tap
			}
			// Private unless --identified; --anonymous asks for what is
			// the default, and no longer for trial decryption.
			return (&fanseal.Sealer{Identified: opts.identified}).Seal(dst, recipients(list)...)
		})
	if err == nil && tap != nil {
		reportSealed(stderr, list, tap.Header())
	}
	return err
}

// sealOutput is what encrypt does for both formats once it has its
// recipients: it refuses binary to a terminal, opens the input and the
// output, armors with newArmor under -a, has seal start the envelope on
// what it is given, copies the input through it, and commits the output
// once all of it is written.
func sealOutput(opts *encryptOptions, pos []string, stdin io.Reader, stdout, stderr io.Writer,
	newArmor func(io.Writer) io.WriteCloser, seal func(io.Writer) (io.WriteCloser, error)) error {
	if opts.out == "" && !opts.armor && report.IsTerminal(stdout) {
		return fmt.Errorf("refusing to output binary to the terminal: use -a for text armor, -o FILE, or force it with -o -")
	}
	in, closeIn, err := openInput(first(pos), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	in, clearProgress := withProgress(in, stderr, "encrypting")
	defer clearProgress()
	o, err := createOutput(opts.out, stdout, 0o666)
	if err != nil {
		return err
	}
	defer o.Abort()
	o.RemakeableFrom(first(pos))
	bw := bufio.NewWriterSize(o, 64<<10)
	var dst io.Writer = bw
	var aw io.WriteCloser
	if opts.armor {
		aw = newArmor(bw)
		dst = aw
	}
	w, err := seal(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, in); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if aw != nil {
		if err := aw.Close(); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return o.Commit()
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// abbreviate shortens a key for an error message.
func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:36] + "..."
	}
	return s
}
