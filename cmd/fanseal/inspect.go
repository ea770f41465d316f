package main

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
	Version     int             `json:"version"`
	AEAD        string          `json:"aead"`
	Anonymous   bool            `json:"anonymous"`
	Armored     bool            `json:"armored"`
	Recipients  []stanzaSummary `json:"recipients"`
	SharedKeys  []string        `json:"shared_ephemeral_keys,omitempty"` // suites with one ephemeral key for the envelope
	HeaderSize  int             `json:"header_size"`
	PayloadSize int64           `json:"payload_size"`
	Chunks      int64           `json:"chunks"`
}

type stanzaSummary struct {
	Type   string `json:"type"` // hpke, shared, channel, ephemeral-key or unknown
	Suite  string `json:"suite"`
	KeyID  string `json:"key_id,omitempty"`
	Sender string `json:"sender_key_id,omitempty"` // channel stanzas
	Epoch  uint32 `json:"epoch,omitempty"`         // channel stanzas
}

// inspectOptions are inspect's flags.
type inspectOptions struct {
	json bool
}

func inspectFlags(fs *flag.FlagSet) *inspectOptions {
	o := &inspectOptions{}
	fs.BoolVar(&o.json, "json", false, "print JSON")
	return o
}

func inspect(args []string, stdin io.Reader, stdout, _ io.Writer) error {
	fs := newFlags("inspect")
	opts := inspectFlags(fs)
	pos, err := parseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	in, closeIn, err := openInput(first(pos), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	raw, err := refuseAgeFile(in)
	if err != nil {
		return err
	}
	br, armored := maybeArmored(raw)
	h, err := format.ReadHeader(br)
	if err != nil {
		return describe(err)
	}
	rep := inspection{Version: format.Version, AEAD: fanseal.AEAD(h.AEAD).String(), Anonymous: h.Anonymous(), Armored: armored, HeaderSize: len(h.Raw) + format.MACSize}
	for st := range h.Stanzas() {
		s := stanzaSummary{Type: fmt.Sprintf("unknown (0x%02x)", st.Type), Suite: "?"}
		switch st.Type {
		case format.StanzaHPKE, format.StanzaShared:
			s.Type = map[byte]string{format.StanzaHPKE: "hpke", format.StanzaShared: "shared"}[st.Type]
			if kem, id, ok := format.PeekHPKE(st.Body, h.Anonymous()); ok {
				s.Suite, s.KeyID = fanseal.Suite(kem).String(), hex.EncodeToString(id)
			}
		case format.StanzaChannel:
			s.Type = "channel"
			if cs, err := format.ParseChannel(st.Body); err == nil {
				s.Suite, s.KeyID, s.Sender, s.Epoch = fanseal.Suite(cs.KEM).String(), hex.EncodeToString(cs.KeyID), hex.EncodeToString(cs.SenderID), cs.Epoch
			}
		case format.StanzaEphemeral:
			if kem, _, err := format.ParseEphemeral(st.Body); err == nil {
				rep.SharedKeys = append(rep.SharedKeys, fanseal.Suite(kem).String())
			}
			continue // not a recipient
		}
		rep.Recipients = append(rep.Recipients, s)
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
	if rep.Anonymous {
		fmt.Fprintf(stdout, "recipients:  %d (anonymous: no key identifiers)\n", len(rep.Recipients))
	} else {
		fmt.Fprintf(stdout, "recipients:  %d\n", len(rep.Recipients))
	}
	for i, s := range rep.Recipients {
		extra := ""
		if s.Type == "channel" {
			extra = fmt.Sprintf("  from %s, epoch %d", s.Sender, s.Epoch)
		}
		fmt.Fprintf(stdout, "  %4d  %-16s %-8s %s%s\n", i, s.Suite, s.Type, s.KeyID, extra)
	}
	if len(rep.SharedKeys) > 0 {
		fmt.Fprintf(stdout, "shared ephemeral keys: %s\n", strings.Join(rep.SharedKeys, ", "))
	}
	fmt.Fprintf(stdout, "header:      %d bytes\n", rep.HeaderSize)
	fmt.Fprintf(stdout, "payload:     %d bytes in %d chunks (not authenticated: inspect holds no key)\n", rep.PayloadSize, rep.Chunks)
	return nil
}
