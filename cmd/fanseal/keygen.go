package main

import (
	"fmt"
	"io"
	"time"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

func keygen(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("keygen")
	suiteName := fs.String("suite", "x25519", "suite of the new identity")
	out := fs.String("o", "", "output file")
	fs.StringVar(out, "output", "", "output file")
	convert := fs.String("y", "", "print the public keys of this identity file")
	ageForm := fs.Bool("age", false, "write and print keys in age's form")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *convert != "" {
		ids, err := identityList([]string{*convert})
		if err != nil {
			return err
		}
		for _, id := range identities(ids) {
			pub, _, err := keyTexts(id, *ageForm)
			if err != nil {
				return fmt.Errorf("%s: %w", *convert, err)
			}
			fmt.Fprintln(stdout, pub)
		}
		return nil
	}
	suite, err := fanseal.ParseSuite(*suiteName)
	if err != nil {
		return err
	}
	id, err := fanseal.GenerateIdentity(suite)
	if err != nil {
		return err
	}
	pub, secret, err := keyTexts(id, *ageForm)
	if err != nil {
		return err
	}
	o, err := createOutput(*out, stdout, 0o600)
	if err != nil {
		return err
	}
	defer o.Abort()
	fmt.Fprintf(o, "# created: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(o, "# suite: %s\n", suite)
	fmt.Fprintf(o, "# public key: %s\n", pub)
	if _, err := fmt.Fprintf(o, "%s\n", secret); err != nil {
		return err
	}
	if err := o.Commit(); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintln(stdout, pub)
	} else if report.IsTerminal(stdout) {
		fmt.Fprintf(stderr, "Public key: %s\n", pub)
	}
	return nil
}

// keyTexts returns the text forms of id's recipient and of id, fanseal's
// or, with age set, age's (age1…, AGE-SECRET-KEY-1…), which age reads too.
func keyTexts(id *fanseal.Identity, age bool) (pub, secret string, err error) {
	if !age {
		return id.Recipient().String(), id.String(), nil
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
