package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"filippo.io/age"
	"filippo.io/age/agessh"
	"filippo.io/age/armor"
	"filippo.io/age/plugin"
	"github.com/fanseal/fanseal"
	fsarmor "github.com/fanseal/fanseal/armor"
	"github.com/fanseal/fanseal/internal/format"
	"golang.org/x/crypto/ssh"
	"golang.org/x/term"
)

// Reading age files: decrypt hands an age v1 file, binary or armored, to
// age's own library (filippo.io/age), with the identities of the -i files
// read as age's command line reads them. Only the command line links age:
// the library's module does not depend on it.

// ageFileLimit is the most fanseal reads of an age-encrypted identity
// file, and ageSSHKeyLimit of an SSH private key, as age's command line.
const (
	ageFileLimit   = 16 << 20
	ageSSHKeyLimit = 16 << 10
)

// ageMaxScryptWorkFactor is the largest scrypt work factor (log2 N)
// decrypt accepts from an age file's passphrase stanza: age's own bound,
// about 15 s of work on a current machine.
const ageMaxScryptWorkFactor = 22

// readPassphrase asks for a passphrase on the terminal, never echoing
// it. A passphrase is never taken from an argument, nor from the
// environment except by -j batchpass, which asks for it; tests replace
// this function to drive the prompts.
var readPassphrase = func(prompt string) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("a passphrase is asked on the terminal, and there is none: %w", err)
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s ", prompt)
	defer fmt.Fprint(tty, "\r\n")
	return term.ReadPassword(int(tty.Fd()))
}

// An ageIdentities is what decrypt gives age's library: the identities of
// the -i and -j flags, and, for the errors, where the fanseal keys that
// no age file can be for (p256, secp256k1) were given.
type ageIdentities struct {
	ids     []age.Identity
	skipped []string // fanseal keys age files cannot be for, by source
}

// ageUI is how a plugin talks to the user: messages on stderr, questions
// on the terminal.
func ageUI(stderr io.Writer) *plugin.ClientUI {
	say := func(format string, v ...any) { fmt.Fprintf(stderr, "fanseal: "+format+"\n", v...) }
	warn := func(format string, v ...any) { fmt.Fprintf(stderr, "fanseal: warning: "+format+"\n", v...) }
	return plugin.NewTerminalUI(say, warn)
}

// readAgeIdentities reads the -i files as age identities: age's X25519
// and post-quantum keys (or fanseal's spelling of them), plugin
// identities, SSH private keys (asking a key's passphrase on the
// terminal) and age-encrypted identity files (asking theirs); then the
// plugins named with -j, asked without an identity, as age -j does.
// stdin hands out standard input for a file named "-".
func readAgeIdentities(files, plugins []string, stdin *stdinUse, stderr io.Writer) (*ageIdentities, error) {
	out := &ageIdentities{}
	for _, name := range files {
		var in io.Reader
		if name == "-" {
			r, err := stdin.take("-i -")
			if err != nil {
				return nil, err
			}
			in, name = r, stdinName
		} else {
			f, err := os.Open(name)
			if err != nil {
				return nil, fmt.Errorf("identity file: %w", err)
			}
			defer f.Close()
			in = f
		}
		if err := out.readFile(name, in, stderr); err != nil {
			return nil, err
		}
	}
	for _, name := range plugins {
		id, err := jIdentity(name, stderr)
		if err != nil {
			return nil, err
		}
		out.ids = append(out.ids, id)
	}
	return out, nil
}

// jIdentity returns the identity of -j name: the plugin's identity
// without data, as age -j asks it, or the built-in batchpass.
func jIdentity(name string, stderr io.Writer) (age.Identity, error) {
	if name == batchpassName {
		return batchpassIdentity()
	}
	id, err := plugin.NewIdentityWithoutData(name, ageUI(stderr))
	if err != nil {
		return nil, fmt.Errorf("%w: -j %s: %v", ErrUsage, name, err)
	}
	return id, nil
}

// readFile reads the identity file name from in.
func (a *ageIdentities) readFile(name string, in io.Reader, stderr io.Writer) error {
	br := bufio.NewReaderSize(in, max(2*ageMaxWhitespace+len(armor.Header), fsarmor.DetectSize))
	start, _ := br.Peek(ageMaxWhitespace + len(armor.Header))
	trimmed := bytes.TrimSpace(start)
	head, _ := br.Peek(fsarmor.DetectSize)
	switch {
	case isEnvelope(head):
		// An identity file fanseal encrypted (encrypt -p): unlocked
		// when first needed, as age's are.
		contents, err := readAtMost(br, ageFileLimit)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		a.ids = append(a.ids, &encryptedIdentity{name: name, contents: contents, stderr: stderr, envelope: true})
		return nil
	case bytes.HasPrefix(start, []byte(ageIntro)) || bytes.HasPrefix(trimmed, []byte(armor.Header)):
		var r io.Reader = br
		if bytes.HasPrefix(trimmed, []byte(armor.Header)) {
			r = armor.NewReader(br)
		}
		contents, err := readAtMost(r, ageFileLimit)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		a.ids = append(a.ids, &encryptedIdentity{name: name, contents: contents, stderr: stderr})
		return nil
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN")):
		contents, err := readAtMost(br, ageSSHKeyLimit)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		id, err := sshIdentity(name, contents)
		if err != nil {
			return err
		}
		a.ids = append(a.ids, id)
		return nil
	}
	return readKeyLines(name, br, "identity", fanseal.MaxIdentities, func(line string, src keySource) error {
		id, err := parseAgeIdentity(line, stderr)
		switch {
		case err != nil:
			return err
		case id == nil:
			a.skipped = append(a.skipped, src.String())
		default:
			a.ids = append(a.ids, id)
		}
		return nil
	})
}

// readAtMost reads r to its end, refusing more than limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: the file is larger than %d KiB, the most fanseal reads of it", fanseal.ErrInvalidKey, limit>>10)
	}
	return b, nil
}

// parseAgeIdentity parses one line of an identity file as an age
// identity: a plugin identity, or an X25519 or post-quantum key in age's
// or fanseal's spelling. A fanseal key of a suite age has no form for (p256,
// secp256k1) cannot open an age file: it is nil, without an error.
func parseAgeIdentity(line string, stderr io.Writer) (age.Identity, error) {
	if strings.HasPrefix(strings.ToUpper(line), "AGE-PLUGIN-") {
		return plugin.NewIdentity(line, ageUI(stderr))
	}
	// age's keys and fanseal's go through the library's parser, which
	// checks age's spelling rules and never quotes a secret in an error.
	id, err := fanseal.ParseIdentity(line)
	if err != nil {
		return nil, err
	}
	s, err := id.AgeString()
	if err != nil {
		return nil, nil
	}
	if id.Suite() == fanseal.MLKEM768X25519 {
		return age.ParseHybridIdentity(s)
	}
	return age.ParseX25519Identity(s)
}

// sshIdentity parses an SSH private key; one protected by a passphrase
// asks it on the terminal when a stanza may be for it, and needs its
// public key, in the key or in name.pub.
func sshIdentity(name string, pemBytes []byte) (age.Identity, error) {
	id, err := agessh.ParseIdentity(pemBytes)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		pub := missing.PublicKey
		if pub == nil {
			b, err := os.ReadFile(name + ".pub")
			if err != nil {
				return nil, fmt.Errorf("%s: the SSH key is protected by a passphrase and its public key is not in it: %w (convert it with ssh-keygen -p -m RFC4716)", name, err)
			}
			if pub, _, _, _, err = ssh.ParseAuthorizedKey(b); err != nil {
				return nil, fmt.Errorf("%s.pub: %w", name, err)
			}
		}
		prompt := func() ([]byte, error) { return readPassphrase(fmt.Sprintf("Enter passphrase for %q:", name)) }
		return agessh.NewEncryptedSSHIdentity(pub, pemBytes, prompt)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: not an SSH private key age can use: %v", name, fanseal.ErrInvalidKey, err)
	}
	return id, nil
}

// newScryptIdentity returns age's passphrase identity, bounded to
// ageMaxScryptWorkFactor.
func newScryptIdentity(pass []byte) (*age.ScryptIdentity, error) {
	id, err := age.NewScryptIdentity(string(pass))
	if err != nil {
		return nil, err
	}
	id.SetMaxWorkFactor(ageMaxScryptWorkFactor)
	return id, nil
}

// A passphraseIdentity opens an age file sealed to a passphrase (a lone
// scrypt stanza), asking the passphrase on the terminal only then.
type passphraseIdentity struct {
	prompt string
	asked  bool
}

// Unwrap asks the passphrase and opens the scrypt stanza, or returns
// age.ErrIncorrectIdentity if the file is not sealed to a passphrase.
func (p *passphraseIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	for _, s := range stanzas {
		if s.Type == "scrypt" && len(stanzas) != 1 {
			return nil, errors.New("a passphrase (scrypt) stanza must be alone in its file")
		}
	}
	if len(stanzas) != 1 || stanzas[0].Type != "scrypt" {
		return nil, age.ErrIncorrectIdentity
	}
	if err := checkWorkFactor(stanzas[0]); err != nil {
		return nil, err
	}
	p.asked = true
	pass, err := readPassphrase(p.prompt)
	if err != nil {
		return nil, fmt.Errorf("reading the passphrase: %w", err)
	}
	id, err := newScryptIdentity(pass)
	if err != nil {
		return nil, err
	}
	key, err := id.Unwrap(stanzas)
	if errors.Is(err, age.ErrIncorrectIdentity) {
		return nil, errors.New("incorrect passphrase")
	}
	return key, err
}

// identitiesGiven refuses a passphrase file when identities were given.
type identitiesGiven struct{}

func (identitiesGiven) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	if len(stanzas) != 1 || stanzas[0].Type != "scrypt" {
		return nil, age.ErrIncorrectIdentity
	}
	return nil, errors.New("file is passphrase-encrypted but identities were specified with -i/--identity or -j: leave them out to be asked the passphrase")
}

// checkWorkFactor refuses, before any passphrase is asked, a scrypt
// stanza that age's rules would refuse once it is: a work factor that is
// not a decimal without leading zeros, or one over ageMaxScryptWorkFactor.
func checkWorkFactor(s *age.Stanza) error {
	if len(s.Args) != 2 {
		return errors.New("malformed scrypt stanza: it needs a salt and a work factor")
	}
	w := s.Args[1]
	if w == "" || w[0] == '0' || strings.Trim(w, "0123456789") != "" {
		return fmt.Errorf("malformed scrypt stanza: invalid work factor %q", w)
	}
	if n, err := strconv.Atoi(w); err != nil || n > ageMaxScryptWorkFactor {
		return fmt.Errorf("scrypt work factor too large: %s (fanseal accepts at most %d, as age does)", w, ageMaxScryptWorkFactor)
	}
	return nil
}

// An encryptedIdentity is an identity file that age encrypted with a
// passphrase: it asks the passphrase, decrypts the file and tries its
// identities, the first time a file is opened with it.
type encryptedIdentity struct {
	name     string
	contents []byte
	stderr   io.Writer
	ids      []age.Identity
	envelope bool // contents is a fanseal envelope, not an age file
}

// Unwrap opens one of stanzas with the identities of the file.
func (e *encryptedIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	if e.ids == nil {
		if err := e.decrypt(); err != nil {
			return nil, err
		}
	}
	for _, id := range e.ids {
		key, err := id.Unwrap(stanzas)
		if errors.Is(err, age.ErrIncorrectIdentity) {
			continue
		}
		return key, err
	}
	return nil, fmt.Errorf("%w: the identities of the encrypted file %s", age.ErrIncorrectIdentity, e.name)
}

// decrypt asks the passphrase and reads the identities of the file.
func (e *encryptedIdentity) decrypt() error {
	plain, err := e.plaintext()
	if err != nil {
		return err
	}
	inner := &ageIdentities{}
	err = readKeyLines(e.name, bytes.NewReader(plain), "identity", fanseal.MaxIdentities, func(line string, src keySource) error {
		id, err := parseAgeIdentity(line, e.stderr)
		if id != nil {
			inner.ids = append(inner.ids, id)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("in the encrypted identity file: %w", err)
	}
	e.ids = inner.ids
	return nil
}

// plaintext asks the passphrase and returns the decrypted file.
func (e *encryptedIdentity) plaintext() ([]byte, error) {
	if e.envelope {
		return unlockEnvelope(e.name, bufio.NewReader(bytes.NewReader(e.contents)))
	}
	pass := &passphraseIdentity{prompt: fmt.Sprintf("Enter passphrase for identity file %q:", e.name)}
	r, err := age.Decrypt(bytes.NewReader(e.contents), pass)
	if errors.As(err, new(*age.NoIdentityMatchError)) {
		return nil, fmt.Errorf("%s: %w: the identity file is encrypted with age, but not with a passphrase", e.name, fanseal.ErrInvalidKey)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: decrypting the identity file: %w", e.name, err)
	}
	plain, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: decrypting the identity file: %w", e.name, err)
	}
	return plain, nil
}

// openIdentityFile opens the identity file name (from in, or from the
// file itself when in is nil) for fanseal's own envelopes: what to read of
// it, or, for an identity file that age, or fanseal (encrypt -p),
// encrypted with a passphrase, the file read but not yet unlocked. The
// function returned closes the file.
func openIdentityFile(name string, in io.Reader) (io.Reader, *lockedFile, func(), error) {
	done := func() {}
	if in == nil {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("identity file: %w", err)
		}
		in, done = f, func() { f.Close() }
	}
	br := bufio.NewReaderSize(in, max(2*ageMaxWhitespace+len(armor.Header), fsarmor.DetectSize))
	start, _ := br.Peek(ageMaxWhitespace + len(armor.Header))
	trimmed := bytes.TrimSpace(start)
	head, _ := br.Peek(fsarmor.DetectSize)
	l := &lockedFile{name: name}
	var r io.Reader
	switch {
	case bytes.HasPrefix(start, []byte(ageIntro)):
		r = br
	case bytes.HasPrefix(trimmed, []byte(armor.Header)):
		r = armor.NewReader(br)
	case isEnvelope(head):
		r, l.envelope = br, true
	default:
		return br, nil, done, nil
	}
	var err error
	if l.contents, err = readAtMost(r, ageFileLimit); err == nil {
		err = l.check()
	}
	if err != nil {
		done()
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return nil, l, done, nil
}

// check reads the header of the locked file, without its passphrase, so
// that a file that cannot be unlocked is refused when it is read, as an
// unencrypted one is.
func (l *lockedFile) check() error {
	if l.envelope {
		env, armored := maybeArmored(bytes.NewReader(l.contents))
		if _, err := format.ReadHeader(env); err != nil {
			return fmt.Errorf("decrypting the identity file: %w", describe(armorFirst(armored, env, err)))
		}
		return nil
	}
	_, err := age.Decrypt(bytes.NewReader(l.contents), probe{})
	if err != nil && !errors.Is(err, errProbe) && !errors.As(err, new(*age.NoIdentityMatchError)) {
		return fmt.Errorf("decrypting the identity file: %w", err)
	}
	return nil
}

// probe is an age identity that reads no stanza: age.Decrypt with it
// alone parses an age file's header and stops before any key is needed.
type probe struct{}

var errProbe = errors.New("probe")

func (probe) Unwrap([]*age.Stanza) ([]byte, error) { return nil, errProbe }

// A lockedFile is an identity file encrypted with a passphrase, by age or
// by fanseal (encrypt -p), read but not yet unlocked.
type lockedFile struct {
	name     string
	contents []byte // an age file, binary, or a fanseal envelope as written
	envelope bool
}

// identities asks the file's passphrase on the terminal and parses what
// it unlocks.
func (l *lockedFile) identities() ([]*namedIdentity, error) {
	plain, err := (&encryptedIdentity{name: l.name, contents: l.contents, envelope: l.envelope}).plaintext()
	if err != nil {
		return nil, err
	}
	return readIdentities(l.name, bytes.NewReader(plain))
}

// unlockEnvelope opens an identity file that is a fanseal envelope
// (binary or armored) sealed to a passphrase, asked on the terminal once
// its work factor is known to be within the bound, and returns its
// plaintext, the identity file.
func unlockEnvelope(name string, br *bufio.Reader) ([]byte, error) {
	contents, err := readAtMost(br, ageFileLimit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	env, armored := maybeArmored(bytes.NewReader(contents))
	pass := fanseal.NewScryptIdentityFunc(func() ([]byte, error) {
		return readPassphrase(fmt.Sprintf("Enter passphrase for identity file %q:", name))
	}, ageMaxScryptWorkFactor)
	r, err := fanseal.Open(env, pass)
	if err == nil {
		var plain []byte
		if plain, err = io.ReadAll(r); err == nil {
			return plain, nil
		}
	}
	if errors.Is(err, fanseal.ErrNotRecipient) {
		return nil, fmt.Errorf("%s: %w: the identity file is a fanseal envelope, but not one sealed to a passphrase (fanseal encrypt -p seals one)", name, fanseal.ErrInvalidKey)
	}
	return nil, fmt.Errorf("%s: decrypting the identity file: %w", name, describe(armorFirst(armored, env, err)))
}

// openAge decrypts the age file in br with ids, and returns the reader of
// its payload, which authenticates every chunk and fails on truncation.
func openAge(br *bufio.Reader, ids *ageIdentities) (io.Reader, error) {
	var src io.Reader = br
	if ageArmored(br) {
		src = armor.NewReader(br)
	}
	var pass age.Identity = &passphraseIdentity{prompt: "Enter passphrase:"}
	if len(ids.ids)+len(ids.skipped) > 0 {
		// As age: with -i or -j given, a passphrase file is refused
		// rather than asked for, since the identities were meant.
		pass = identitiesGiven{}
	}
	all := append(append([]age.Identity{}, ids.ids...), pass)
	r, err := age.Decrypt(src, all...)
	if err != nil {
		return nil, describeAge(err, ids)
	}
	return &ageReader{r: r}, nil
}

// An ageReader is the payload of an age file; its errors say so.
type ageReader struct{ r io.Reader }

func (a *ageReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if err != nil && err != io.EOF {
		err = describeAge(err, nil)
	}
	return n, err
}

// errAge marks the errors of an age file.
var errAge = errors.New("age file")

// describeAge says what an error of age's library means, prefixed with
// "age file: ".
func describeAge(err error, ids *ageIdentities) error {
	var noMatch *age.NoIdentityMatchError
	var armorErr *armor.Error
	var notFound *plugin.NotFoundError
	switch {
	case errors.As(err, &noMatch) && ids != nil && len(ids.ids) == 0 && len(ids.skipped) == 0 && !slices.Contains(noMatch.StanzaTypes, "scrypt"):
		// No -i at all, as age says it: identities are required.
		msg := fmt.Sprintf("%v: not a recipient: file is not passphrase-encrypted, identities are required (its stanzas: %s); give them with -i PATH, or -j PLUGIN", errAge, stanzaTypes(noMatch.StanzaTypes))
		return &describedError{msg: msg, err: errors.Join(errAge, fanseal.ErrNotRecipient, err)}
	case errors.As(err, &noMatch):
		msg := fmt.Sprintf("%v: not a recipient: no identity matched any of the recipients (its stanzas: %s)", errAge, stanzaTypes(noMatch.StanzaTypes))
		if ids != nil && len(ids.skipped) > 0 {
			msg += fmt.Sprintf("; age files have no stanzas for the fanseal keys of %s", strings.Join(ids.skipped, ", "))
		}
		if len(noMatch.StanzaTypes) == 1 && noMatch.StanzaTypes[0] == "scrypt" {
			msg = fmt.Sprintf("%v: %v", errAge, err)
		}
		return &describedError{msg: msg, err: errors.Join(errAge, fanseal.ErrNotRecipient, err)}
	case errors.As(err, &notFound):
		msg := fmt.Sprintf("%v: %v; plugins are programs named age-plugin-%s on the PATH: see https://age-encryption.org/awesome#plugins", errAge, err, notFound.Name)
		return &describedError{msg: msg, err: errors.Join(errAge, err)}
	case errors.As(err, &armorErr):
		return &describedError{msg: fmt.Sprintf("%v: corrupted armor: %v", errAge, err), err: errors.Join(errAge, err)}
	case strings.HasSuffix(err.Error(), "bad header MAC"):
		return &describedError{msg: fmt.Sprintf("%v: the file was tampered with or is corrupted: bad header MAC", errAge), err: errors.Join(errAge, fanseal.ErrAuthentication, err)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &describedError{msg: fmt.Sprintf("%v: truncated: %v", errAge, err), err: errors.Join(errAge, fanseal.ErrTruncated, err)}
	}
	return &describedError{msg: fmt.Sprintf("%v: %v", errAge, err), err: errors.Join(errAge, err)}
}

// stanzaTypes lists an age file's stanza types: "2 X25519, 1 ssh-ed25519".
func stanzaTypes(types []string) string {
	var order []string
	count := map[string]int{}
	for _, t := range types {
		if count[t] == 0 {
			order = append(order, t)
		}
		count[t]++
	}
	parts := make([]string, len(order))
	for i, t := range order {
		parts[i] = fmt.Sprintf("%d %s", count[t], t)
	}
	if len(parts) == 0 {
		return "no recipient"
	}
	return strings.Join(parts, ", ")
}

// isEnvelope reports whether b starts a fanseal envelope, binary (its
// magic and version: a key's text, FANSEAL_SECRET_…, starts with the magic
// too) or armored.
func isEnvelope(b []byte) bool {
	return bytes.HasPrefix(b, append([]byte(format.Magic), format.Version)) || fsarmor.IsArmored(b)
}
