package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fanseal/fanseal"
)

// A keySource says where the command line gave a key: a line of a file,
// or the position of a -r flag among the -r flags.
type keySource struct {
	File string `json:"file,omitempty"` // empty for -r
	Line int    `json:"line"`           // the line of File, or the -r flag's position, from 1
	// Comment is what the comment lines directly above the key say, less
	// the lines keygen and age-keygen write (created, suite, public key,
	// key id).
	Comment string `json:"comment,omitempty"`
}

// String returns "team.txt:3" or "-r #2", or "id_ed25519" for a whole
// file (Line 0).
func (s keySource) String() string {
	switch {
	case s.File == "":
		return fmt.Sprintf("-r #%d", s.Line)
	case s.Line == 0:
		return s.File
	}
	return fmt.Sprintf("%s:%d", s.File, s.Line)
}

// describe returns the source with its comment: "team.txt:3 (alice)".
func (s keySource) describe() string {
	if s.Comment == "" {
		return s.String()
	}
	return fmt.Sprintf("%s (%s)", s, s.Comment)
}

// A namedRecipient is a recipient with where it was given. Also lists the
// places where the same key was given again and merged into this one.
type namedRecipient struct {
	*fanseal.Recipient
	src  keySource
	also []keySource
}

// A namedIdentity is an identity with the line of the file that holds it.
type namedIdentity struct {
	*fanseal.Identity
	src keySource
	// recipient, if set, is what encrypt -i seals to for an identity
	// whose Recipient has no key: a plugin identity's plugin recipient.
	recipient *fanseal.Recipient
}

// keyComments are comment lines that keygen and age-keygen write above a
// key; they say nothing about whose key it is.
var keyComments = []string{"created:", "suite:", "public key:", "key id:"}

// readKeyLines calls f with every key line of the file name (blank lines
// and lines starting with # skipped), its source and the comment above
// it; with in set, it reads in instead, under that name. An error from f
// is returned prefixed with the file and line. The file must hold at
// least one key, and at most maxKeys (0: no limit); what names the kind of
// key in the errors. It reads files as the library's ParseRecipients and
// ParseIdentities do: a file over fanseal.MaxKeyFileSize is refused as a
// whole, never read in part.
func readKeyLines(name string, in io.Reader, what string, maxKeys int, f func(line string, src keySource) error) error {
	if in == nil {
		file, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("%s file: %w", what, err)
		}
		defer file.Close()
		in = file
	}
	keys := 0
	for line, err := range fanseal.KeyLines(in) {
		switch {
		case errors.Is(err, fanseal.ErrKeyFileTooLarge):
			return fmt.Errorf("%s: %w: the %s file is larger than %d MiB, the most fanseal reads", name, fanseal.ErrInvalidKey, what, fanseal.MaxKeyFileSize>>20)
		case err != nil:
			return fmt.Errorf("%s: reading the %s file: %w", name, what, err)
		}
		var comment []string
		for _, c := range line.Comments {
			meta := false
			for _, k := range keyComments {
				meta = meta || strings.HasPrefix(strings.ToLower(c), k)
			}
			if c != "" && !meta {
				comment = append(comment, c)
			}
		}
		src := keySource{File: name, Line: line.Number, Comment: strings.Join(comment, " ")}
		if maxKeys > 0 && keys == maxKeys {
			return fmt.Errorf("%s: %w: more than %d keys in the %s file, the most fanseal reads", src, fanseal.ErrInvalidKey, maxKeys, what)
		}
		if err := f(line.Text, src); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		keys++
	}
	if keys == 0 {
		return fmt.Errorf("%s: no %s in the file (one key per line; # starts a comment)", name, what)
	}
	return nil
}

// A suiteKey is a suite and bytes of a key of that suite: a public key or
// a key identifier.
type suiteKey struct {
	suite fanseal.Suite
	b     string
}

// errSecretAsRecipient is the mistake of passing an identity with -r or -R.
var errSecretAsRecipient = errors.New("this is a secret key: pass it with -i, or get its public key with `fanseal keygen -y`")

// isSecretKey reports whether s looks like an identity that keygen -y reads:
// fanseal's FANSEAL_SECRET_… or age's AGE-SECRET-KEY-….
func isSecretKey(s string) bool {
	u := strings.ToUpper(s)
	return strings.HasPrefix(u, "FANSEAL_SECRET_") || strings.HasPrefix(u, "AGE-SECRET-KEY-")
}

// parseRecipientText parses one recipient, refusing an identity without
// echoing it.
func parseRecipientText(s string) (*fanseal.Recipient, error) {
	switch {
	case isSecretKey(s):
		return nil, errSecretAsRecipient
	case isPluginRecipient(s):
		return ageStanzaRecipient(s)
	}
	return fanseal.ParseRecipient(s)
}

// recipientList parses the recipients given with -r (keys) and -R (files
// of keys), in that order. A key given more than once, in either spelling
// (fanseal's or age's), is one recipient: its first source is kept and
// the others are listed in also. An error names the file and line, or
// the -r flag, of the key it is about. A file named "-" is standard
// input, which stdin hands out once.
func recipientList(keys, files []string, stdin *stdinUse) ([]*namedRecipient, error) {
	var list []*namedRecipient
	byKey := map[suiteKey]*namedRecipient{}
	add := func(r *fanseal.Recipient, src keySource) {
		k := suiteKey{r.Suite(), string(r.Bytes())}
		if first, ok := byKey[k]; ok {
			first.also = append(first.also, src)
			return
		}
		n := &namedRecipient{Recipient: r, src: src}
		byKey[k] = n
		list = append(list, n)
	}
	for i, s := range keys {
		src := keySource{Line: i + 1}
		r, err := parseRecipientText(s)
		if err != nil {
			if isSecretKey(s) {
				return nil, fmt.Errorf("%s: %w", src, err)
			}
			return nil, fmt.Errorf("%s (%s): %w", src, abbreviate(s), err)
		}
		add(r, src)
	}
	for _, name := range files {
		in, name, err := keyFileInput(name, "-R -", stdin)
		if err != nil {
			return nil, err
		}
		err = readKeyLines(name, in, "recipients", 0, func(line string, src keySource) error {
			r, err := parseRecipientText(line)
			if err == nil {
				add(r, src)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return list, nil
}

// checkSealable refuses what one envelope cannot hold, naming the keys
// it is about: post-quantum and classical recipients together, distinct
// keys with the same key identifier (unless anonymous), too many
// recipients.
func checkSealable(list []*namedRecipient, anonymous bool) error {
	byID := map[suiteKey]*namedRecipient{}
	for _, n := range list {
		if n.Suite().PostQuantum() != list[0].Suite().PostQuantum() {
			return fmt.Errorf("%s: %w: this %s key and the %s key of %s; seal one envelope for each kind",
				n.src, fanseal.ErrMixedSuites, n.Suite(), list[0].Suite(), list[0].src.describe())
		}
		id := n.KeyID()
		k := suiteKey{n.Suite(), string(id[:])}
		if other, ok := byID[k]; ok && !anonymous {
			return fmt.Errorf("%s: %w: a different key from %s with the same key identifier %x; leave out --identified (a private envelope carries no identifiers)",
				n.src, fanseal.ErrDuplicateRecipient, other.src, id)
		}
		byID[k] = n
	}
	if len(list) > fanseal.MaxRecipients {
		return fmt.Errorf("%w: %d recipients (at most %d)", fanseal.ErrRecipientCount, len(list), fanseal.MaxRecipients)
	}
	return nil
}

// identityList parses the identity files, in order; a file named "-" is
// standard input, which stdin hands out once. A file that age or fanseal
// encrypted with a passphrase is read after asking it on the terminal.
func identityList(files []string, stdin *stdinUse) ([]*namedIdentity, error) {
	var list []*namedIdentity
	_, err := readIdentityFiles(files, stdin, false, &list)
	return list, err
}

// readIdentityFiles is identityList, appending to *list; where lazy is
// set it leaves the encrypted files locked, and returns them, in order:
// their identities are not in *list until their passphrase is asked
// (lockedFile.identities).
func readIdentityFiles(files []string, stdin *stdinUse, lazy bool, list *[]*namedIdentity) ([]*lockedFile, error) {
	var locked []*lockedFile
	for _, name := range files {
		in, name, err := keyFileInput(name, "-i -", stdin)
		if err != nil {
			return nil, err
		}
		r, l, done, err := openIdentityFile(name, in)
		if err != nil {
			return nil, err
		}
		var more []*namedIdentity
		switch {
		case l != nil && lazy:
			locked = append(locked, l)
		case l != nil:
			more, err = l.identities()
		default:
			more, err = readIdentities(name, r)
		}
		done()
		if err != nil {
			return nil, err
		}
		*list = append(*list, more...)
	}
	return locked, nil
}

// readIdentities parses the identity file name, or in under that name:
// fanseal's and age's keys and plugin identities, one per line, or an SSH
// private key, the whole file.
func readIdentities(name string, in io.Reader) ([]*namedIdentity, error) {
	if in == nil {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("identity file: %w", err)
		}
		defer f.Close()
		in = f
	}
	br := bufio.NewReader(in)
	if startsSSHKey(br) {
		id, err := readSSHIdentity(name, br)
		if err != nil {
			return nil, err
		}
		return []*namedIdentity{id}, nil
	}
	var list []*namedIdentity
	err := readKeyLines(name, br, "identity", fanseal.MaxIdentities, func(line string, src keySource) error {
		if strings.HasPrefix(strings.ToUpper(line), "AGE-PLUGIN-") {
			id, r, err := pluginIdentity(line)
			if err == nil {
				list = append(list, &namedIdentity{Identity: id, src: src, recipient: r})
			}
			return err
		}
		id, err := fanseal.ParseIdentity(line)
		if err != nil {
			return err
		}
		list = append(list, &namedIdentity{Identity: id, src: src})
		return nil
	})
	return list, err
}

// keyFileInput returns what readKeyLines reads for the key file name:
// nil (the file itself), or standard input, taken from stdin for flag,
// under the name stdinName.
func keyFileInput(name, flag string, stdin *stdinUse) (io.Reader, string, error) {
	if name != "-" {
		return nil, name, nil
	}
	in, err := stdin.take(flag)
	return in, stdinName, err
}

// identities returns the identities of list.
func identities(list []*namedIdentity) []*fanseal.Identity {
	ids := make([]*fanseal.Identity, len(list))
	for i, n := range list {
		ids[i] = n.Identity
	}
	return ids
}

// recipients returns the recipients of list.
func recipients(list []*namedRecipient) []*fanseal.Recipient {
	rs := make([]*fanseal.Recipient, len(list))
	for i, n := range list {
		rs[i] = n.Recipient
	}
	return rs
}
