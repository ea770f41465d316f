package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/armor"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// decryptOptions are decrypt's flags.
type decryptOptions struct {
	identities multiFlag
	out        string
}

func decryptFlags(fs *flag.FlagSet) *decryptOptions {
	o := &decryptOptions{}
	fs.Var(&o.identities, "i", "identity file")
	fs.Var(&o.identities, "identity", "identity file")
	fs.StringVar(&o.out, "o", "", "output file")
	fs.StringVar(&o.out, "output", "", "output file")
	return o
}

func decrypt(args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	fs := newFlags("decrypt")
	opts := decryptFlags(fs)
	pos, err := parseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	if len(opts.identities) == 0 {
		return fmt.Errorf("%w: decrypt needs at least one -i PATH (an identity file)", errUsage)
	}
	ids, err := identityList(opts.identities)
	if err != nil {
		return err
	}
	in, closeIn, err := openInput(first(pos), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	in, clearProgress := withProgress(in, stderr, "decrypting")
	defer clearProgress()
	br, err := refuseAgeFile(in)
	if err != nil {
		return err
	}
	src, _ := maybeArmored(br)
	r, err := fanseal.Open(src, identities(ids)...)
	if err != nil {
		return describe(err)
	}
	o, err := createOutput(opts.out, stdout, 0o666)
	if err != nil {
		return err
	}
	defer o.Abort()
	var dst io.Writer = o
	if opts.out == "" && report.IsTerminal(stdout) {
		guard := &textGuard{w: o}
		defer func() {
			if cerr := guard.Close(); err == nil {
				err = cerr
			}
		}()
		dst = guard
	}
	if _, err := io.Copy(dst, r); err != nil {
		if errors.Is(err, errBinaryToTerminal) {
			return err
		}
		return describe(err)
	}
	return o.Commit()
}

// maybeArmored returns a reader of the binary envelope in r, decoding
// armor when the input starts with the armor header, and whether it did.
func maybeArmored(r io.Reader) (*bufio.Reader, bool) {
	br := bufio.NewReader(r)
	start, _ := br.Peek(len(armor.Header))
	if armor.IsArmored(start) {
		return bufio.NewReader(armor.NewReader(br)), true
	}
	return br, false
}

// describe prefixes an open error with what it means for the user.
func describe(err error) error {
	var what string
	switch {
	case errors.Is(err, fanseal.ErrNotRecipient):
		what = "not a recipient: no identity can open this envelope"
	case errors.Is(err, fanseal.ErrTruncated):
		what = "truncated envelope"
	case errors.Is(err, fanseal.ErrAuthentication):
		what = "the envelope was tampered with or is corrupted"
	case errors.Is(err, fanseal.ErrUnsupported):
		what = "unsupported envelope"
	case errors.Is(err, fanseal.ErrMalformed):
		what = "corrupted header or not a fanseal envelope"
	default:
		return err
	}
	return fmt.Errorf("%s (%v)", what, err)
}
