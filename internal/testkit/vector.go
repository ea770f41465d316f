// Package testkit reads fanseal's conformance vectors, the files in
// testdata/vectors that docs/FORMAT.md describes ("Conformance vectors").
//
// Its tests hold the generator of those files: a second implementation of
// the envelope writer, written from docs/FORMAT.md and the RFCs alone, that
// shares no code with fanseal. Run
//
//	go test ./internal/testkit -run TestGenerate -update
//
// to rewrite testdata/vectors; without -update the test regenerates every
// vector in memory and fails if a committed file differs.
package testkit

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The expected outcomes of a vector, the values of its expect field.
const (
	Success        = "success"        // opens; the payload's SHA-256 is given
	Malformed      = "malformed"      // fanseal.ErrMalformed
	Unsupported    = "unsupported"    // fanseal.ErrUnsupported
	NotRecipient   = "not-recipient"  // fanseal.ErrNotRecipient
	Authentication = "authentication" // fanseal.ErrAuthentication
	Truncated      = "truncated"      // fanseal.ErrTruncated
	InvalidKey     = "invalid-key"    // fanseal.ErrInvalidKey: refused key text
)

// Classes lists every expected outcome.
var Classes = []string{Success, Malformed, Unsupported, NotRecipient, Authentication, Truncated, InvalidKey}

// maxBody bounds a decompressed body: the largest envelope a reader can
// be asked to look at before the header limit stops it, with room to spare.
const maxBody = 64 << 20

// A Vector is one conformance test: keys, an envelope, and what a reader
// must make of them.
type Vector struct {
	Name       string   // the file name
	Expect     string   // one of Classes
	Payload    []byte   // SHA-256 of the plaintext; Success only
	Identities []string // identity text, in order
	// SSHIdentities are SSH private key files (unencrypted OpenSSH
	// format), each stored as one line of standard base64: the reader
	// holds them too.
	SSHIdentities [][]byte
	// Passphrase is a passphrase the reader holds for type 0x07 stanzas,
	// with a work factor bound of 2^22; "" for none.
	Passphrase string
	// AgeIdentities are age X25519 identities (AGE-SECRET-KEY-1…) that
	// the reader holds through age's own X25519 stanza type, so that they
	// open type 0x08 stanzas, and only those.
	AgeIdentities []string
	Recipients    []string // recipient text (key-text vectors)
	Keyring       string   // identity text of the Keyring that opens channel stanzas
	Peer          string   // recipient text of the sender, a peer of Keyring
	Epoch         uint32   // the Keyring's epoch
	Armored       bool     // Body is armored text
	Compressed    bool     // Body is stored zlib-compressed in the file
	Comments      []string // what the vector checks
	Body          []byte   // the envelope (or its armor), decompressed
}

// Comment returns the vector's comments on one line.
func (v *Vector) Comment() string { return strings.Join(v.Comments, " ") }

// String names the vector and what it checks, for test failures.
func (v *Vector) String() string { return v.Name + " (" + v.Comment() + ")" }

// Marshal returns the vector's file.
func (v *Vector) Marshal() ([]byte, error) {
	if err := v.check(); err != nil {
		return nil, fmt.Errorf("vector %s: %w", v.Name, err)
	}
	var b bytes.Buffer
	field := func(name, value string) { fmt.Fprintf(&b, "%s: %s\n", name, value) }
	field("expect", v.Expect)
	if v.Payload != nil {
		field("payload", hex.EncodeToString(v.Payload))
	}
	for _, id := range v.Identities {
		field("identity", id)
	}
	for _, f := range v.SSHIdentities {
		field("ssh-identity", base64.StdEncoding.EncodeToString(f))
	}
	if v.Passphrase != "" {
		field("passphrase", v.Passphrase)
	}
	for _, id := range v.AgeIdentities {
		field("age-identity", id)
	}
	for _, r := range v.Recipients {
		field("recipient", r)
	}
	if v.Keyring != "" {
		field("keyring", v.Keyring)
		field("peer", v.Peer)
		field("epoch", strconv.FormatUint(uint64(v.Epoch), 10))
	}
	if v.Armored {
		field("armored", "yes")
	}
	if v.Compressed {
		field("compressed", "zlib")
	}
	for _, c := range v.Comments {
		field("comment", c)
	}
	b.WriteByte('\n')
	if !v.Compressed {
		b.Write(v.Body)
		return b.Bytes(), nil
	}
	z, err := zlib.NewWriterLevel(&b, zlib.BestSpeed)
	if err != nil {
		return nil, err
	}
	z.Write(v.Body)
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// check reports a vector that its file could not express or that says
// something contradictory.
func (v *Vector) check() error {
	if !slices.Contains(Classes, v.Expect) {
		return fmt.Errorf("unknown expect %q", v.Expect)
	}
	if (v.Expect == Success) != (v.Payload != nil) {
		return errors.New("payload is given exactly for success")
	}
	if v.Payload != nil && len(v.Payload) != 32 {
		return errors.New("payload is not a SHA-256")
	}
	if (v.Keyring == "") != (v.Peer == "") {
		return errors.New("keyring and peer go together")
	}
	if len(v.Recipients) > 0 && v.Expect != InvalidKey {
		return errors.New("recipient is only for invalid-key vectors")
	}
	if len(v.Comments) == 0 {
		return errors.New("no comment")
	}
	for _, f := range v.SSHIdentities {
		if len(f) == 0 {
			return errors.New("empty ssh-identity")
		}
	}
	if !utf8.ValidString(v.Passphrase) {
		return errors.New("passphrase is not UTF-8")
	}
	for _, s := range slices.Concat(v.Identities, v.AgeIdentities, v.Recipients, v.Comments, []string{v.Keyring, v.Peer, v.Passphrase}) {
		if strings.ContainsAny(s, "\r\n") {
			return fmt.Errorf("field value %q spans lines", s)
		}
	}
	return nil
}

// Parse reads the vector file data named name.
func Parse(name string, data []byte) (*Vector, error) {
	v := &Vector{Name: name}
	errorf := func(format string, args ...any) error {
		return fmt.Errorf("vector %s: %s", name, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	for {
		line, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok {
			return nil, errorf("no blank line ends the header")
		}
		data = rest
		if len(line) == 0 {
			break
		}
		key, value, ok := strings.Cut(string(line), ": ")
		if !ok {
			return nil, errorf("header line %q is not name: value", line)
		}
		if value == "" {
			return nil, errorf("field %s is empty", key)
		}
		repeatable := key == "identity" || key == "ssh-identity" || key == "age-identity" || key == "recipient" || key == "comment"
		if seen[key] && !repeatable {
			return nil, errorf("field %s repeats", key)
		}
		seen[key] = true
		switch key {
		case "expect":
			v.Expect = value
		case "payload":
			sum, err := hex.DecodeString(value)
			if err != nil {
				return nil, errorf("payload: %v", err)
			}
			v.Payload = sum
		case "identity":
			v.Identities = append(v.Identities, value)
		case "ssh-identity":
			f, err := base64.StdEncoding.Strict().DecodeString(value)
			if err != nil {
				return nil, errorf("ssh-identity: %v", err)
			}
			v.SSHIdentities = append(v.SSHIdentities, f)
		case "passphrase":
			v.Passphrase = value
		case "age-identity":
			v.AgeIdentities = append(v.AgeIdentities, value)
		case "recipient":
			v.Recipients = append(v.Recipients, value)
		case "keyring":
			v.Keyring = value
		case "peer":
			v.Peer = value
		case "epoch":
			e, err := strconv.ParseUint(value, 10, 32)
			if err != nil {
				return nil, errorf("epoch: %v", err)
			}
			v.Epoch = uint32(e)
		case "armored":
			if value != "yes" {
				return nil, errorf("armored: %q, want yes", value)
			}
			v.Armored = true
		case "compressed":
			if value != "zlib" {
				return nil, errorf("compressed: %q, want zlib", value)
			}
			v.Compressed = true
		case "comment":
			v.Comments = append(v.Comments, value)
		default:
			return nil, errorf("unknown field %q", key)
		}
	}
	if seen["epoch"] && !seen["keyring"] {
		return nil, errorf("epoch without keyring")
	}
	if err := v.check(); err != nil {
		return nil, errorf("%v", err)
	}
	v.Body = data
	if v.Compressed {
		z, err := zlib.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, errorf("body: %v", err)
		}
		body, err := io.ReadAll(io.LimitReader(z, maxBody+1))
		if err == nil {
			err = z.Close()
		}
		if err != nil {
			return nil, errorf("body: %v", err)
		}
		if len(body) > maxBody {
			return nil, errorf("body: larger than %d bytes", maxBody)
		}
		v.Body = body
	}
	return v, nil
}

// Load reads every vector in dir, in file name order.
func Load(dir string) ([]*Vector, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var vs []*Vector
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		v, err := Parse(e.Name(), data)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("no vectors in %s", dir)
	}
	return vs, nil
}
