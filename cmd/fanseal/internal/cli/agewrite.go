package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"filippo.io/age/armor"
	"filippo.io/age/plugin"
	"filippo.io/age/tag"
	"github.com/fanseal/fanseal"
	"golang.org/x/crypto/scrypt"
)

// Writing age files: encrypt --age writes an age v1 file with age's own
// library, for recipients who have only age.

// errNotForAge marks a recipient that age has no stanza for.
var errNotForAge = errors.New("age has no recipients of this kind")

// An ageRecipient is a recipient of an age file and where it was given.
type ageRecipient struct {
	age.Recipient
	key string // the key in age's text form, which merges duplicates
	src keySource
}

// parseAgeRecipient parses one recipient for an age file: age's X25519
// (age1…) and post-quantum (age1pq1…) keys or fanseal's spelling of them,
// ssh-ed25519 and ssh-rsa public keys (an authorized_keys line, comment
// and all), age's tagged recipients (age1tag1…, age1tagpq1…) and plugin
// recipients (age1NAME1…). fanseal's p256 and
// secp256k1 keys are refused, naming their suite.
func parseAgeRecipient(s string, stderr io.Writer) (age.Recipient, string, error) {
	switch {
	case isSecretKey(s):
		return nil, "", errSecretAsRecipient
	case strings.HasPrefix(s, "ssh-"):
		r, err := agessh.ParseRecipient(s)
		if err != nil {
			return nil, "", fmt.Errorf("%w: %v", fanseal.ErrInvalidKey, err)
		}
		fields := strings.Fields(s)
		return r, strings.Join(fields[:min(2, len(fields))], " "), nil
	case strings.HasPrefix(s, "age1tag1") || strings.HasPrefix(s, "age1tagpq1"):
		r, err := tag.ParseRecipient(s)
		return r, s, err
	case strings.HasPrefix(s, "age1pq1"):
	case strings.HasPrefix(s, "age1") && strings.Count(s, "1") > 1:
		r, err := plugin.NewRecipient(s, ageUI(stderr))
		return r, s, err
	}
	r, err := fanseal.ParseRecipient(s)
	if err != nil {
		return nil, "", err
	}
	key, err := r.AgeString()
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s is a fanseal-only suite (age has x25519 and mlkem768x25519, not %s); seal a fanseal envelope without --age", errNotForAge, r.Suite(), r.Suite())
	}
	if r.Suite() == fanseal.MLKEM768X25519 {
		h, err := age.ParseHybridRecipient(key)
		return h, key, err
	}
	x, err := age.ParseX25519Recipient(key)
	return x, key, err
}

// ageRecipientList parses the recipients of -r and -R for an age file,
// then those of the identity files of -i, in that order, merging a key
// given twice (with a warning naming both places); errors name the -r
// flag or the file and line.
func ageRecipientList(keys, files, identityFiles []string, stdin *stdinUse, stderr io.Writer) ([]*ageRecipient, error) {
	var list []*ageRecipient
	first := map[string]keySource{}
	add := func(r *ageRecipient) {
		if src, ok := first[r.key]; ok {
			fmt.Fprintf(stderr, "fanseal: warning: %s gives the same key as %s; it is one recipient\n", r.src, src)
			return
		}
		first[r.key] = r.src
		list = append(list, r)
	}
	parse := func(s string, src keySource) error {
		r, key, err := parseAgeRecipient(s, stderr)
		if err == nil {
			add(&ageRecipient{Recipient: r, key: key, src: src})
		}
		return err
	}
	for i, s := range keys {
		src := keySource{Line: i + 1}
		if err := parse(s, src); err != nil {
			if isSecretKey(s) {
				return nil, fmt.Errorf("%s: %w", src, err)
			}
			return nil, fmt.Errorf("%s (%s): %w", src, abbreviate(s), err)
		}
	}
	for _, name := range files {
		in, name, err := keyFileInput(name, "-R -", stdin)
		if err != nil {
			return nil, err
		}
		if err := readKeyLines(name, in, "recipients", 0, parse); err != nil {
			return nil, err
		}
	}
	fromIDs, err := ageIdentityRecipients(identityFiles, stdin, stderr)
	if err != nil {
		return nil, err
	}
	for _, r := range fromIDs {
		add(r)
	}
	return list, nil
}

// pluginRecipient is -j NAME of encrypt: the plugin age-plugin-NAME
// without recipient data, as age -e -j has it (the recipient of its
// identity without data); -j batchpass is built in (batchpass.go).
func pluginRecipient(name string, stderr io.Writer) (age.Recipient, error) {
	if name == batchpassName {
		return batchpassRecipient()
	}
	id, err := plugin.NewIdentityWithoutData(name, ageUI(stderr))
	if err != nil {
		return nil, fmt.Errorf("%w: -j %s: %v", ErrUsage, name, err)
	}
	return id.Recipient(), nil
}

// encryptAge is encrypt --age: it writes INPUT as an age v1 file for the
// recipients, or with -p for a passphrase asked on the terminal, with
// age's library, armored with age's armor under -a.
func encryptAge(opts *encryptOptions, pos []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch {
	case opts.anonymous, opts.identified:
		return fmt.Errorf("%w: --anonymous and --identified: an age file never carries key identifiers; leave them out with --age", ErrUsage)
	case opts.verbose:
		return fmt.Errorf("%w: -v: --age writes age's format, whose stanzas fanseal does not report; fanseal inspect describes the file", ErrUsage)
	case opts.passphrase && len(opts.recipients)+len(opts.files)+len(opts.identities)+len(opts.plugins) > 0:
		return fmt.Errorf("%w: -p: a passphrase is alone in its file (age's rule): leave out -r, -R and -i, or -p", ErrUsage)
	}
	var list []*ageRecipient
	var err error
	if opts.passphrase {
		list, err = agePassphraseRecipient()
	} else {
		list, err = ageRecipientList(opts.recipients, opts.files, opts.identities, newStdinUse(stdin, payloadFromStdin(pos)), stderr)
	}
	if err != nil {
		return err
	}
	for _, name := range opts.plugins {
		r, err := pluginRecipient(name, stderr)
		if err != nil {
			return err
		}
		list = append(list, &ageRecipient{Recipient: r, key: "-j " + name, src: keySource{File: "-j " + name}})
	}
	if len(list) == 0 {
		return fmt.Errorf("%w: encrypt needs at least one -r, -R, -i or -j, or --age -p", ErrUsage)
	}
	recs := make([]age.Recipient, len(list))
	for i, r := range list {
		recs[i] = r.Recipient
	}
	return sealOutput(opts, pos, stdin, stdout, stderr, armor.NewWriter, func(dst io.Writer) (io.WriteCloser, error) {
		w, err := age.Encrypt(dst, recs...)
		if err != nil {
			var notFound *plugin.NotFoundError
			if errors.As(err, &notFound) {
				return nil, fmt.Errorf("age: %w; plugins are programs named age-plugin-%s on the PATH: see https://age-encryption.org/awesome#plugins", err, notFound.Name)
			}
			return nil, fmt.Errorf("age: %w", err)
		}
		return w, nil
	})
}

// scryptWorkFactor returns the scrypt work factor (log2 N) for a new
// passphrase file; tests replace it with a small one.
var scryptWorkFactor = tunedScryptWorkFactor

// tunedScryptWorkFactor measures scrypt on this machine and returns the
// work factor that takes about a second, at least age's default (18) and
// at most what readers accept (ageMaxScryptWorkFactor).
func tunedScryptWorkFactor() int {
	const probe = 14
	start := time.Now()
	if _, err := scrypt.Key([]byte("probe"), []byte("fanseal scrypt probe"), 1<<probe, 8, 1, 32); err != nil {
		return 18
	}
	took := time.Since(start)
	logN := probe
	for ; logN < ageMaxScryptWorkFactor && took < 700*time.Millisecond; logN++ {
		took *= 2
	}
	return min(max(logN, 18), ageMaxScryptWorkFactor)
}

// askNewPassphrase asks a new passphrase on the terminal, never echoing
// it, and then asks it again; an empty answer has fanseal generate one
// (newPassphrase), which it shows on the terminal, as age does.
func askNewPassphrase() ([]byte, error) {
	pass, err := readPassphrase("Enter passphrase (leave empty to autogenerate a secure one):")
	if err != nil {
		return nil, err
	}
	if len(pass) == 0 {
		pass = []byte(newPassphrase())
		if err := tellTerminal(fmt.Sprintf("fanseal: using autogenerated passphrase %q", pass)); err != nil {
			return nil, err
		}
		return pass, nil
	}
	again, err := readPassphrase("Confirm passphrase:")
	if err != nil {
		return nil, err
	}
	defer clear(again)
	if !bytes.Equal(pass, again) {
		return nil, errors.New("passphrases didn't match")
	}
	return pass, nil
}

// passphraseRecipient asks a new passphrase twice on the terminal and
// returns fanseal's passphrase (scrypt) recipient for it, with the work
// factor tuned to about a second on this machine.
func passphraseRecipient() ([]*namedRecipient, error) {
	pass, err := askNewPassphrase()
	if err != nil {
		return nil, err
	}
	defer clear(pass)
	r, err := fanseal.NewScryptRecipient(pass, scryptWorkFactor())
	if err != nil {
		return nil, err
	}
	return []*namedRecipient{{Recipient: r, src: keySource{File: "the passphrase"}}}, nil
}

// agePassphraseRecipient asks a new passphrase twice on the terminal and
// returns age's passphrase (scrypt) recipient for it.
func agePassphraseRecipient() ([]*ageRecipient, error) {
	pass, err := askNewPassphrase()
	if err != nil {
		return nil, err
	}
	r, err := age.NewScryptRecipient(string(pass))
	if err != nil {
		return nil, err
	}
	r.SetWorkFactor(scryptWorkFactor())
	return []*ageRecipient{{Recipient: r, key: "scrypt", src: keySource{File: "the passphrase"}}}, nil
}
