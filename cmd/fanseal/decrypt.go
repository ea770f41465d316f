package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/armor"
)

func decrypt(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("decrypt")
	var idFiles multiFlag
	fs.Var(&idFiles, "i", "identity file")
	fs.Var(&idFiles, "identity", "identity file")
	out := fs.String("o", "", "output file")
	fs.StringVar(out, "output", "", "output file")
	pos, err := parseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	if len(idFiles) == 0 {
		return fmt.Errorf("%w: decrypt needs at least one -i IDENTITY_FILE", errUsage)
	}
	ids, err := readKeyFiles(idFiles, "identity file", fanseal.ParseIdentities)
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
	src, armored := maybeArmored(in)
	r, err := fanseal.Open(src, ids...)
	if err != nil {
		return describe(armorFirst(armored, src, err))
	}
	o, err := createOutput(*out, stdout, 0o666)
	if err != nil {
		return err
	}
	defer o.Abort()
	if _, err := io.Copy(o, r); err != nil {
		return describe(armorFirst(armored, src, err))
	}
	return o.Commit()
}

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
