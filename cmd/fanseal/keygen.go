package main

import (
	"fmt"
	"io"
	"time"

	"github.com/fanseal/fanseal"
)

func keygen(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("keygen")
	suiteName := fs.String("suite", "x25519", "suite of the new identity")
	out := fs.String("o", "", "output file")
	fs.StringVar(out, "output", "", "output file")
	convert := fs.String("y", "", "print the public keys of this identity file")
	if _, err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	if *convert != "" {
		ids, err := readKeyFiles([]string{*convert}, "identity file", fanseal.ParseIdentities)
		if err != nil {
			return err
		}
		for _, id := range ids {
			fmt.Fprintln(stdout, id.Recipient())
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
	o, err := createOutput(*out, stdout, 0o600)
	if err != nil {
		return err
	}
	defer o.Abort()
	fmt.Fprintf(o, "# created: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(o, "# suite: %s\n", suite)
	fmt.Fprintf(o, "# public key: %s\n", id.Recipient())
	if _, err := fmt.Fprintf(o, "%s\n", id); err != nil {
		return err
	}
	if err := o.Commit(); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintln(stdout, id.Recipient())
	} else if isTerminal(stdout) {
		fmt.Fprintf(stderr, "Public key: %s\n", id.Recipient())
	}
	return nil
}
