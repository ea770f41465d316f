package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/armor"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

func encrypt(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("encrypt")
	var rs, rfiles multiFlag
	fs.Var(&rs, "r", "recipient")
	fs.Var(&rs, "recipient", "recipient")
	fs.Var(&rfiles, "R", "recipients file")
	fs.Var(&rfiles, "recipients-file", "recipients file")
	useArmor := fs.Bool("a", false, "armor")
	fs.BoolVar(useArmor, "armor", false, "armor")
	anonymous := fs.Bool("anonymous", false, "omit key identifiers")
	out := fs.String("o", "", "output file")
	fs.StringVar(out, "output", "", "output file")
	pos, err := parseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	list, err := recipientList(rs, rfiles)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fmt.Errorf("%w: encrypt needs at least one -r or -R", errUsage)
	}
	if *out == "" && !*useArmor && report.IsTerminal(stdout) {
		return fmt.Errorf("refusing to write a binary envelope to the terminal; use -a for text, or -o FILE")
	}
	in, closeIn, err := openInput(first(pos), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	in, clearProgress := withProgress(in, stderr, "encrypting")
	defer clearProgress()
	o, err := createOutput(*out, stdout, 0o666)
	if err != nil {
		return err
	}
	defer o.Abort()
	bw := bufio.NewWriterSize(o, 64<<10)
	var dst io.Writer = bw
	var aw *armor.Writer
	if *useArmor {
		aw = armor.NewWriter(bw)
		dst = aw
	}
	w, err := (&fanseal.Sealer{Anonymous: *anonymous}).Seal(dst, recipients(list)...)
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
