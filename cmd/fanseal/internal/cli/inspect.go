package cli

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/stream"
)

// inspection is what inspect prints; its JSON form is stable.
type inspection struct {
	Version    int             `json:"version"`
	AEAD       string          `json:"aead"`
	Anonymous  bool            `json:"anonymous"`
	Private    bool            `json:"private"`
	Armored    bool            `json:"armored"`
	Recipients []stanzaSummary `json:"recipients"`
	// Named and Unknown count the recipient stanzas that a key given with
	// -r, -R or -i owns, and those none does; with no keys given, both
	// are absent.
	Named       *int     `json:"named,omitempty"`
	Unknown     *int     `json:"unknown,omitempty"`
	SharedKeys  []string `json:"shared_ephemeral_keys,omitempty"` // suites with one ephemeral key for the envelope
	HeaderSize  int      `json:"header_size"`
	PayloadSize int64    `json:"payload_size"`
	Chunks      int64    `json:"chunks"`
}

type stanzaSummary struct {
	Type   string `json:"type"` // hpke, shared, channel or unknown
	Suite  string `json:"suite"`
	KeyID  string `json:"key_id,omitempty"`
	Tag    string `json:"tag,omitempty"`           // a private envelope's shared stanzas
	Sender string `json:"sender_key_id,omitempty"` // channel stanzas
	Epoch  uint32 `json:"epoch,omitempty"`         // channel stanzas
	// Owners are the keys given on the command line that the stanza is
	// for; SenderOwners, for a channel stanza, those of its sender.
	Owners       []keyOwner `json:"owners,omitempty"`
	SenderOwners []keyOwner `json:"sender_owners,omitempty"`

	Index int `json:"index"` // among the header's stanzas, as decrypt and fanseal.StanzaFor count them
}

// A keyOwner is a key given on the command line, and where it was given.
type keyOwner struct {
	Source  string `json:"source"`            // "team.txt:4" or "-r #1"
	File    string `json:"file,omitempty"`    // a recipients or identity file
	Line    int    `json:"line,omitempty"`    // its line
	Flag    int    `json:"flag,omitempty"`    // or the position of the -r flag
	Comment string `json:"comment,omitempty"` // the comment above the key in File
	Key     string `json:"key"`               // the public key

	src keySource
}

// inspectOptions are inspect's flags.
type inspectOptions struct {
	json                          bool
	recipients, files, identities multiFlag
}

func inspectFlags(fs *flag.FlagSet) *inspectOptions {
	o := &inspectOptions{}
	fs.BoolVar(&o.json, "json", false, "print JSON")
	fs.Var(&o.recipients, "r", "a public key to look for")
	fs.Var(&o.recipients, "recipient", "a public key to look for")
	fs.Var(&o.files, "R", "a file of public keys to look for")
	fs.Var(&o.files, "recipients-file", "a file of public keys to look for")
	fs.Var(&o.identities, "i", "an identity file whose keys to look for")
	fs.Var(&o.identities, "identity", "an identity file whose keys to look for")
	return o
}

// knownKeys maps a suite and key identifier to the keys given on the
// command line that have it.
type knownKeys map[suiteKey][]keyOwner

// knownKeysOf indexes the keys of -r, -R and -i by key identifier, and
// returns the identities of -i, which find their own stanzas in a private
// envelope; stdin hands out standard input to a -R - or -i -.
func knownKeysOf(o *inspectOptions, stdin *stdinUse) (knownKeys, []*namedIdentity, error) {
	rs, err := recipientList(o.recipients, o.files, stdin)
	if err != nil {
		return nil, nil, err
	}
	ids, err := identityList(o.identities, stdin)
	if err != nil {
		return nil, nil, err
	}
	known := knownKeys{}
	add := func(r *fanseal.Recipient, src keySource) {
		id := r.KeyID()
		k := suiteKey{r.Suite(), string(id[:])}
		o := keyOwner{Source: src.String(), File: src.File, Line: src.Line, Comment: src.Comment, Key: recipientText(r), src: src}
		if src.File == "" {
			o.Line, o.Flag = 0, src.Line
		}
		known[k] = append(known[k], o)
	}
	for _, n := range rs {
		for _, src := range append([]keySource{n.src}, n.also...) {
			add(n.Recipient, src)
		}
	}
	for _, n := range ids {
		add(n.Recipient(), n.src)
	}
	return known, ids, nil
}

// owner is the keyOwner of an identity given with -i.
func (n *namedIdentity) owner() keyOwner {
	return keyOwner{Source: n.src.String(), File: n.src.File, Line: n.src.Line, Comment: n.src.Comment, Key: recipientText(n.Recipient()), src: n.src}
}

// owners returns the keys of suite kem with the hex key identifier id.
func (k knownKeys) owners(kem string, id string) []keyOwner {
	b, err := hex.DecodeString(id)
	if err != nil || id == "" {
		return nil
	}
	s, err := fanseal.ParseSuite(kem)
	if kem == "ssh-rsa" {
		s, err = 0, nil // ssh-rsa keys have no suite
	}
	if err != nil {
		return nil
	}
	return k[suiteKey{s, string(b)}]
}

func inspect(args []string, stdin io.Reader, stdout, _ io.Writer) error {
	fs := NewFlags("inspect")
	opts := inspectFlags(fs)
	pos, err := ParseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	known, ids, err := knownKeysOf(opts, newStdinUse(stdin, payloadFromStdin(pos)))
	if err != nil {
		return err
	}
	naming := len(opts.recipients)+len(opts.files)+len(opts.identities) > 0
	in, closeIn, err := openInput(first(pos), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	raw, isAge, err := sniffInput(in)
	if err != nil {
		return err
	}
	if isAge {
		return inspectAge(raw, first(pos), opts.json, naming, stdout)
	}
	br, armored := maybeArmored(raw)
	h, err := format.ReadHeader(br)
	if err != nil {
		return describe(err)
	}
	rep := inspection{Version: format.Version, AEAD: fanseal.AEAD(h.AEAD).String(), Anonymous: h.Anonymous(), Private: h.Private(), Armored: armored, HeaderSize: len(h.Raw) + format.MACSize}
	rep.Recipients, rep.SharedKeys = stanzas(h)
	if naming {
		// In a private envelope only an identity finds its stanza: the
		// one key agreement of an open, without opening it.
		mine := map[int][]keyOwner{}
		if h.Private() {
			header := append(append([]byte(nil), h.Raw...), h.MAC[:]...)
			for _, n := range ids {
				// An error here is the envelope's (an ephemeral key no
				// agreement accepts): no stanza is this identity's, and
				// decrypt says why.
				if k, err := fanseal.StanzaFor(header, n.Identity); err == nil && k >= 0 {
					mine[k] = append(mine[k], n.owner())
				}
			}
		}
		named, unknown := 0, 0
		for i := range rep.Recipients {
			s := &rep.Recipients[i]
			s.Owners = append(known.owners(s.Suite, s.KeyID), mine[s.Index]...)
			s.SenderOwners = known.owners(s.Suite, s.Sender)
			if len(s.Owners) > 0 {
				named++
			} else {
				unknown++
			}
		}
		rep.Named, rep.Unknown = &named, &unknown
	}
	n, err := io.Copy(io.Discard, br)
	if err != nil {
		return describe(err)
	}
	rep.Chunks, rep.PayloadSize = stream.PlaintextSize(n)
	if opts.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(stdout, "fanseal envelope, version %d\n", rep.Version)
	fmt.Fprintf(stdout, "cipher:      %s\n", rep.AEAD)
	fmt.Fprintf(stdout, "armored:     %v\n", rep.Armored)
	switch {
	case rep.Private && naming:
		fmt.Fprintf(stdout, "recipients:  %d (private: tags only their recipients compute; %d found by the identities given, %d not)\n", len(rep.Recipients), *rep.Named, *rep.Unknown)
	case rep.Private:
		fmt.Fprintf(stdout, "recipients:  %d (private: tags instead of key identifiers)\n", len(rep.Recipients))
	case rep.Anonymous && naming:
		fmt.Fprintf(stdout, "recipients:  %d (anonymous: no key identifiers, so no stanza can be named)\n", len(rep.Recipients))
	case rep.Anonymous:
		fmt.Fprintf(stdout, "recipients:  %d (anonymous: no key identifiers)\n", len(rep.Recipients))
	case naming:
		fmt.Fprintf(stdout, "recipients:  %d (%d named by the keys given, %d unknown)\n", len(rep.Recipients), *rep.Named, *rep.Unknown)
	default:
		fmt.Fprintf(stdout, "recipients:  %d\n", len(rep.Recipients))
	}
	for _, s := range rep.Recipients {
		line := fmt.Sprintf("  %4d  %-16s %-8s %s", s.Index, s.Suite, s.Type, s.KeyID+s.Tag)
		if naming && !rep.Anonymous {
			who := "unknown"
			if len(s.Owners) > 0 {
				who = describeOwners(s.Owners)
			}
			line += "  " + who
		}
		if s.Type == "channel" {
			from := s.Sender
			if len(s.SenderOwners) > 0 {
				from += " (" + describeOwners(s.SenderOwners) + ")"
			}
			line += fmt.Sprintf("  from %s, epoch %d", from, s.Epoch)
		}
		fmt.Fprintln(stdout, strings.TrimRight(line, " "))
	}
	if rep.Private {
		for _, s := range rep.Recipients {
			for _, o := range s.Owners {
				fmt.Fprintf(stdout, "for you:     stanza %d (%s)\n", s.Index, o.src.describe())
			}
		}
	}
	if len(rep.SharedKeys) > 0 {
		fmt.Fprintf(stdout, "shared ephemeral keys: %s\n", strings.Join(rep.SharedKeys, ", "))
	}
	fmt.Fprintf(stdout, "header:      %d bytes\n", rep.HeaderSize)
	fmt.Fprintf(stdout, "payload:     %d bytes in %s (not authenticated: inspect holds no key)\n", rep.PayloadSize, plural(int(rep.Chunks), "chunk"))
	return nil
}

// describeOwners lists where the keys were given: "team.txt:4 (bob), -r #1".
func describeOwners(owners []keyOwner) string {
	names := make([]string, len(owners))
	for i, o := range owners {
		names[i] = o.src.describe()
	}
	return strings.Join(names, ", ")
}

// stanzas summarizes the recipient stanzas of h, and lists the suites
// with a shared ephemeral key.
func stanzas(h *format.Header) (recipients []stanzaSummary, shared []string) {
	for st := range h.Stanzas() {
		s := stanzaSummary{Type: fmt.Sprintf("unknown (0x%02x)", st.Type), Suite: "?", Index: st.Index}
		switch st.Type {
		case format.StanzaHPKE, format.StanzaShared:
			s.Type = map[byte]string{format.StanzaHPKE: "hpke", format.StanzaShared: "shared"}[st.Type]
			if kem, id, ok := format.PeekHPKE(st.Body, h.Anonymous()); ok {
				s.Suite, s.KeyID = fanseal.Suite(kem).String(), hex.EncodeToString(id)
			}
			if h.Private() {
				s.KeyID, s.Tag = "", s.KeyID
			}
		case format.StanzaChannel:
			s.Type = "channel"
			if cs, err := format.ParseChannel(st.Body); err == nil {
				s.Suite, s.KeyID, s.Sender, s.Epoch = fanseal.Suite(cs.KEM).String(), hex.EncodeToString(cs.KeyID), hex.EncodeToString(cs.SenderID), cs.Epoch
			}
		case format.StanzaRSA:
			s.Type, s.Suite = "ssh-rsa", "ssh-rsa"
			if id, _, err := format.ParseRSA(st.Body, h.RSAKeyless()); err == nil && id != nil {
				s.KeyID = hex.EncodeToString(id)
			}
		case format.StanzaScrypt:
			s.Type, s.Suite = "scrypt", "scrypt"
			if sc, err := format.ParseScrypt(st.Body); err == nil {
				s.Suite = fmt.Sprintf("scrypt (work factor 2^%d)", sc.LogN)
			}
		case format.StanzaAge:
			s.Type = "age stanza"
			if a, _, _, err := format.ParseAge(st.Body); err == nil {
				s.Suite = a.Words[0]
			}
		case format.StanzaEphemeral:
			if kem, _, err := format.ParseEphemeral(st.Body); err == nil {
				shared = append(shared, fanseal.Suite(kem).String())
			}
			continue // not a recipient
		}
		recipients = append(recipients, s)
	}
	return recipients, shared
}
