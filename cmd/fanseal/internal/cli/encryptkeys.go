package cli

import (
	"fmt"
	"io"
	"strings"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"filippo.io/age/plugin"
)

// Recipients that encrypt takes besides -r and -R: those of identity
// files (-i, as age's -e -i), and the warnings about keys given twice.

// withIdentityRecipients adds the recipients of the identities ids to
// list, merging a key that list has already.
func withIdentityRecipients(list []*namedRecipient, ids []*namedIdentity) []*namedRecipient {
	byKey := map[suiteKey]*namedRecipient{}
	for _, n := range list {
		byKey[suiteKey{n.Suite(), string(n.Bytes())}] = n
	}
	for _, id := range ids {
		r := id.Recipient()
		if id.recipient != nil {
			r = id.recipient
		}
		k := suiteKey{r.Suite(), string(r.Bytes())}
		if first, ok := byKey[k]; ok && len(r.Bytes()) > 0 { // a plugin's has no key to compare
			first.also = append(first.also, id.src)
			continue
		}
		n := &namedRecipient{Recipient: r, src: id.src}
		byKey[k] = n
		list = append(list, n)
	}
	return list
}

// warnDuplicates writes a warning for every key given more than once,
// naming every place it was given: it is one recipient, as age has it.
func warnDuplicates(stderr io.Writer, list []*namedRecipient) {
	for _, n := range list {
		if len(n.also) == 0 {
			continue
		}
		again := make([]string, len(n.also))
		for i, src := range n.also {
			again[i] = src.String()
		}
		fmt.Fprintf(stderr, "fanseal: warning: %s gives the same key as %s; it is one recipient\n", strings.Join(again, ", "), n.src)
	}
}

// ageIdentityRecipients returns the recipients of the identities of the
// identity files (for encrypt --age -i), each with its file; an
// encrypted identity file asks its passphrase.
func ageIdentityRecipients(files []string, stdin *stdinUse, stderr io.Writer) ([]*ageRecipient, error) {
	var out []*ageRecipient
	for _, name := range files {
		ids, err := readAgeIdentities([]string{name}, nil, stdin, stderr)
		if err != nil {
			return nil, err
		}
		if name == "-" {
			name = stdinName
		}
		src := keySource{File: name}
		rs, err := recipientsOf(ids.ids)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range rs {
			out = append(out, &ageRecipient{Recipient: r, key: recipientKey(r), src: src})
		}
	}
	return out, nil
}

// recipientsOf returns the recipient of each identity, as age's
// command line finds them.
func recipientsOf(ids []age.Identity) ([]age.Recipient, error) {
	var rs []age.Recipient
	for _, id := range ids {
		switch id := id.(type) {
		case *age.X25519Identity:
			rs = append(rs, id.Recipient())
		case *age.HybridIdentity:
			rs = append(rs, id.Recipient())
		case *plugin.Identity:
			rs = append(rs, id.Recipient())
		case *agessh.RSAIdentity:
			rs = append(rs, id.Recipient())
		case *agessh.Ed25519Identity:
			rs = append(rs, id.Recipient())
		case *agessh.EncryptedSSHIdentity:
			rs = append(rs, id.Recipient())
		case *encryptedIdentity:
			if err := id.decrypt(); err != nil {
				return nil, err
			}
			more, err := recipientsOf(id.ids)
			if err != nil {
				return nil, err
			}
			rs = append(rs, more...)
		default:
			return nil, fmt.Errorf("no recipient for an identity of type %T", id)
		}
	}
	return rs, nil
}

// recipientKey returns the text form of r that merges duplicates, or a
// form of its own for a recipient with none.
func recipientKey(r age.Recipient) string {
	if s, ok := r.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%p", r)
}
