package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"filippo.io/age"
	"filippo.io/age/plugin"
	"filippo.io/age/tag"
	"github.com/fanseal/fanseal"
)

// Keys that fanseal's own envelopes take through age's code: plugin
// recipients and identities (age1NAME1…, AGE-PLUGIN-NAME-1…) and age's
// tagged recipients, whose age stanzas ride in fanseal's age-stanza type
// (0x08, docs/FORMAT.md). The library defines the interfaces
// (fanseal.SecretWrapper, fanseal.SecretUnwrapper) and never imports age;
// this file adapts age's Recipient and Identity to them. SSH keys need no
// adapter: the library reads them itself.

// ageWrapper is an age.Recipient as a fanseal.SecretWrapper.
type ageWrapper struct{ r age.Recipient }

func (w ageWrapper) WrapSecret(secret []byte) ([]*fanseal.AgeStanza, error) {
	sts, err := w.r.Wrap(secret)
	if err != nil {
		return nil, pluginError(err)
	}
	out := make([]*fanseal.AgeStanza, len(sts))
	for i, st := range sts {
		out[i] = &fanseal.AgeStanza{Type: st.Type, Args: st.Args, Body: st.Body}
	}
	return out, nil
}

// ageUnwrapper is an age.Identity as a fanseal.SecretUnwrapper.
type ageUnwrapper struct{ id age.Identity }

func (u ageUnwrapper) UnwrapSecret(sts []*fanseal.AgeStanza) ([]byte, error) {
	in := make([]*age.Stanza, len(sts))
	for i, st := range sts {
		in[i] = &age.Stanza{Type: st.Type, Args: st.Args, Body: st.Body}
	}
	secret, err := u.id.Unwrap(in)
	if errors.Is(err, age.ErrIncorrectIdentity) {
		return nil, fmt.Errorf("%w: %v", fanseal.ErrNotRecipient, err)
	}
	if err != nil {
		return nil, pluginError(err)
	}
	return secret, nil
}

// pluginError says where plugins come from when one is missing.
func pluginError(err error) error {
	var notFound *plugin.NotFoundError
	if errors.As(err, &notFound) {
		return fmt.Errorf("%w; plugins are programs named age-plugin-%s on the PATH: see https://age-encryption.org/awesome#plugins", err, notFound.Name)
	}
	return err
}

// isPluginRecipient reports whether s is an age plugin recipient
// (age1NAME1…) or one of age's tagged recipients.
func isPluginRecipient(s string) bool {
	return strings.HasPrefix(s, "age1") && !strings.HasPrefix(s, "age1pq1") && strings.Count(s, "1") > 1
}

// ageStanzaRecipient returns the fanseal recipient of an age plugin or
// tagged recipient.
func ageStanzaRecipient(s string) (*fanseal.Recipient, error) {
	var r age.Recipient
	var err error
	if strings.HasPrefix(s, "age1tag1") || strings.HasPrefix(s, "age1tagpq1") {
		r, err = tag.ParseRecipient(s)
	} else {
		r, err = plugin.NewRecipient(s, ageUI(os.Stderr))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", fanseal.ErrInvalidKey, err)
	}
	return fanseal.NewWrappedRecipient(ageWrapper{r}, s), nil
}

// pluginIdentity returns the fanseal identity of an age plugin identity
// line, and the recipient that encrypt -i seals to for it: the plugin's
// own, which its identity gives, as age's command line has it.
func pluginIdentity(line string) (*fanseal.Identity, *fanseal.Recipient, error) {
	id, err := plugin.NewIdentity(line, ageUI(os.Stderr))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", fanseal.ErrInvalidKey, err)
	}
	r := fanseal.NewWrappedRecipient(ageWrapper{id.Recipient()}, "the recipient of plugin identity "+id.Name())
	return fanseal.NewWrappedIdentity(ageUnwrapper{id}), r, nil
}

// sshKeyLimit bounds an SSH private key file, as age's command line.
const sshKeyLimit = 16 << 10

// readSSHIdentity reads the SSH private key file name from in; one
// protected by a passphrase asks it on the terminal, never echoing it,
// when it first opens a stanza of its key (an envelope not for it, or
// sealing to it, asks nothing), or at once if the file does not hold its
// public key in the clear.
func readSSHIdentity(name string, in io.Reader) (*namedIdentity, error) {
	b, err := readAtMost(in, sshKeyLimit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	prompt := func() ([]byte, error) { return readPassphrase(fmt.Sprintf("Enter passphrase for %q:", name)) }
	id, err := fanseal.NewEncryptedSSHIdentity(b, prompt)
	if errors.Is(err, fanseal.ErrSSHPassphrase) {
		pass, perr := readPassphrase(fmt.Sprintf("Enter passphrase for %q:", name))
		if perr != nil {
			return nil, fmt.Errorf("%s: %w", name, perr)
		}
		id, err = fanseal.ParseSSHIdentityWithPassphrase(b, pass)
		clear(pass)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &namedIdentity{Identity: id, src: keySource{File: name}}, nil
}

// startsSSHKey reports whether the identity file in br is an SSH private
// key (PEM), which is read whole rather than line by line.
func startsSSHKey(br *bufio.Reader) bool {
	start, _ := br.Peek(1024)
	return fanseal.IsSSHPrivateKey(start)
}
