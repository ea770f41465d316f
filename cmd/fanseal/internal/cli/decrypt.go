package cli

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/armor"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// decryptOptions are decrypt's flags.
type decryptOptions struct {
	identities multiFlag
	plugins    multiFlag // -j: age plugins to ask, without an identity
	out        string
}

func decryptFlags(fs *flag.FlagSet) *decryptOptions {
	o := &decryptOptions{}
	fs.Var(&o.identities, "i", "identity file")
	fs.Var(&o.identities, "identity", "identity file")
	fs.Var(&o.plugins, "j", "age plugin")
	fs.StringVar(&o.out, "o", "", "output file")
	fs.StringVar(&o.out, "output", "", "output file")
	return o
}

func decrypt(args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	fs := NewFlags("decrypt")
	opts := decryptFlags(fs)
	pos, err := ParseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	if err := refuseSameAsInput("-o", opts.out, stdin, stdout, inputs(first(pos), "identity file", opts.identities)...); err != nil {
		return err
	}
	noIdentities := fmt.Errorf("%w: decrypt needs at least one -i PATH (an identity file), except for an envelope or age file sealed to a passphrase", ErrUsage)
	keysIn := newStdinUse(stdin, payloadFromStdin(pos))
	in, closeIn, err := openInput(first(pos), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	if payloadFromStdin(pos) && report.IsTerminal(stdin) {
		// Typed or pasted on the terminal, the input is armored: it is
		// read up to its last line first, so that a passphrase prompt
		// does not take its lines, nor they the passphrase (as age does).
		if in, err = bufferTerminalInput(stdin); err != nil {
			return err
		}
	}
	// An empty input is said to be empty after the identities are read,
	// so that a fault in them is reported first, as for any envelope.
	br, isAge, sniffErr := sniffInput(in)
	switch {
	case sniffErr != nil && !errors.Is(sniffErr, errEmptyInput):
		return sniffErr
	case len(opts.identities) == 0 && !isAge && sniffErr != nil:
		return noIdentities
	}
	var ids []*namedIdentity
	var locked []*lockedFile // encrypted identity files, unlocked only if needed
	var ageIDs *ageIdentities
	if isAge {
		ageIDs, err = readAgeIdentities(opts.identities, opts.plugins, keysIn, stderr)
	} else if len(opts.identities) > 0 {
		locked, err = readIdentityFiles(opts.identities, keysIn, true, &ids)
	}
	if !isAge && err == nil {
		// -j NAME: the plugin's identity without data, as for age files;
		// its age stanzas ride in the envelope's type 0x08 stanzas.
		for _, name := range opts.plugins {
			id, perr := jIdentity(name, stderr)
			if perr != nil {
				return perr
			}
			ids = append(ids, &namedIdentity{Identity: fanseal.NewWrappedIdentity(ageUnwrapper{id}), src: keySource{File: "-j " + name}})
		}
	}
	if err != nil {
		return err
	}
	if sniffErr != nil {
		return sniffErr
	}
	warnRepeated("fanseal", stderr, "identity file", opts.identities)
	src, clearProgress := withProgress(br, stderr, "decrypting")
	defer clearProgress()
	o, err := createOutput(opts.out, stdout, 0o666)
	if err != nil {
		return err
	}
	defer o.Abort()
	o.RemakeableFrom(first(pos))
	var r io.Reader
	var failed func(error) error // says what an error of r means
	if isAge {
		failed = func(err error) error { return err } // openAge describes its errors
		r, err = openAge(bufio.NewReader(src), ageIDs)
		if err != nil {
			return err
		}
	} else {
		// The identities that need no passphrase first: the encrypted
		// identity files are unlocked, in order and once each, only if
		// those are not recipients, and the envelope is then read again
		// from the start, which replay keeps (its header, at most).
		in := &replay{r: src, recording: len(locked) > 0 && len(ids) > 0}
		env, armored := maybeArmored(in)
		failed = func(err error) error { return describe(armorFirst(armored, env, err)) }
		switch {
		case len(opts.identities)+len(opts.plugins) == 0:
			// Without -i, an envelope sealed to a passphrase (its one
			// stanza) asks it on the terminal, once the work factor is
			// known to be within the bound; any other is refused.
			r, err = fanseal.Open(env, fanseal.NewScryptIdentityFunc(func() ([]byte, error) {
				return readPassphrase("Enter passphrase:")
			}, ageMaxScryptWorkFactor))
			if errors.Is(err, fanseal.ErrNotRecipient) {
				return noIdentities
			}
		case len(locked) == 0:
			r, err = fanseal.Open(env, identities(ids)...)
		default:
			if len(ids) > 0 {
				if r, err = fanseal.Open(env, identities(ids)...); !errors.Is(err, fanseal.ErrNotRecipient) {
					in.stop()
					break
				}
				env, armored = maybeArmored(in.again())
			}
			for _, l := range locked {
				more, err := l.identities()
				if err != nil {
					return err
				}
				ids = append(ids, more...)
			}
			r, err = fanseal.Open(env, identities(ids)...)
		}
		if err != nil {
			return failed(err)
		}
	}
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
		return failed(err)
	}
	return o.Commit()
}

// A replay records what is read through it while recording, so that the
// input can be read again from its start (again).
type replay struct {
	r         io.Reader
	buf       []byte
	recording bool
}

func (p *replay) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if p.recording {
		p.buf = append(p.buf, b[:n]...)
	}
	return n, err
}

// again returns the input from its start: what was recorded, then the
// rest; recording stops.
func (p *replay) again() io.Reader {
	buf := p.buf
	p.stop()
	return io.MultiReader(bytes.NewReader(buf), p.r)
}

// stop stops recording and drops what was recorded.
func (p *replay) stop() { p.recording, p.buf = false, nil }

// maybeArmored returns a reader of the binary envelope in r, decoding
// armor when the input starts with the armor header (after the white
// space the armor reader skips), and whether it did.
func maybeArmored(r io.Reader) (*bufio.Reader, bool) {
	br := bufio.NewReaderSize(r, max(4096, armor.DetectSize))
	start, _ := br.Peek(armor.DetectSize)
	if armor.IsArmored(start) {
		return bufio.NewReader(armor.NewReader(br)), true
	}
	return br, false
}

// armorFirst returns the error of the armor, when the input is armored
// and its text has a fault, instead of err, the envelope's. A reader that
// is not a recipient stops after the header, where a recipient reads the
// whole text: reading the rest of the text gives both the same verdict on
// it (docs/FORMAT.md, "Text forms").
func armorFirst(armored bool, src io.Reader, err error) error {
	if !armored {
		return err
	}
	if _, armorErr := io.Copy(io.Discard, src); armorErr != nil {
		return armorErr
	}
	return err
}

// errorClasses are the open errors and what each means for the user:
// what replaces the class's own words in the message, and hint, if set,
// says what to do.
var errorClasses = []struct {
	err        error
	what, hint string
}{
	{fanseal.ErrNotRecipient, "not a recipient: none of the identities given can open this envelope", "fanseal inspect -i IDENTITY ENVELOPE tells whether a key is its recipient, and inspect -R RECIPIENTS_FILE names the recipients of an envelope sealed with --identified"},
	{fanseal.ErrTruncated, "truncated envelope", ""},
	{fanseal.ErrAuthentication, "the envelope was tampered with or is corrupted", ""},
	{fanseal.ErrAnonymousLimit, "unsupported envelope: too many trial decryptions", "give only the identity the envelope is for with -i, or ask the sender to seal it again with this version's encrypt, whose private envelopes need trials only for ssh-rsa and age stanzas"},
	{fanseal.ErrScryptWorkFactor, "unsupported envelope: the passphrase's work factor is above what fanseal accepts", "the sender chose a work factor that takes too long to open; ask for one sealed with fanseal encrypt -p, which tunes it to about a second"},
	{fanseal.ErrUnsupported, "unsupported envelope", "a newer fanseal may read it"},
	{fanseal.ErrMalformed, "corrupted header or not a fanseal envelope", ""},
}

// describe rewrites an open error in the user's terms, saying its class
// once: "truncated envelope: payload ends inside chunk 2". The result
// still matches the library's error with errors.Is.
func describe(err error) error {
	for _, c := range errorClasses {
		if !errors.Is(err, c.err) {
			continue
		}
		msg, class := err.Error(), c.err.Error()
		switch i := strings.Index(msg, class); {
		case i >= 0 && c.err == fanseal.ErrMalformed && strings.HasPrefix(msg[i+len(class):], ": not a fanseal envelope"):
			msg = msg[:i] + msg[i+len(class)+2:] // the detail says it already
		case i >= 0:
			msg = msg[:i] + c.what + msg[i+len(class):]
		default:
			msg = c.what + ": " + msg
		}
		switch {
		case c.err == fanseal.ErrNotRecipient && strings.Contains(msg, "sealed to a passphrase"):
			msg += "; decrypt it without -i, and fanseal asks for the passphrase"
		case c.hint != "":
			msg += "; " + c.hint
		}
		return &describedError{msg: msg, err: err}
	}
	return err
}

// A describedError is an error with a message for the user.
type describedError struct {
	msg string
	err error
}

func (e *describedError) Error() string { return e.msg }
func (e *describedError) Unwrap() error { return e.err }
