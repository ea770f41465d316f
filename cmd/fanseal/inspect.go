package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/internal/format"
	"github.com/fanseal/fanseal/internal/stream"
)

// report is what inspect prints; its JSON form is stable.
type report struct {
	Version     int             `json:"version"`
	AEAD        string          `json:"aead"`
	Anonymous   bool            `json:"anonymous"`
	Armored     bool            `json:"armored"`
	Recipients  []stanzaSummary `json:"recipients"`
	HeaderSize  int             `json:"header_size"`
	PayloadSize int64           `json:"payload_size"`
	Chunks      int64           `json:"chunks"`
}

type stanzaSummary struct {
	Suite string `json:"suite"`
	KeyID string `json:"key_id,omitempty"`
}

func inspect(args []string, stdin io.Reader, stdout, _ io.Writer) error {
	fs := newFlags("inspect")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args, 1)
	if err != nil {
		return err
	}
	in, closeIn, err := openInput(first(pos), stdin)
	if err != nil {
		return err
	}
	defer closeIn()
	br, armored := maybeArmored(in)
	h, err := format.ReadHeader(br)
	if err != nil {
		return describe(err)
	}
	rep := report{Version: format.Version, AEAD: fanseal.AEAD(h.AEAD).String(), Anonymous: h.Anonymous(), Armored: armored, HeaderSize: len(h.Raw) + format.MACSize}
	for st := range h.Stanzas() {
		s := stanzaSummary{Suite: fmt.Sprintf("stanza type 0x%02x", st.Type)}
		if st.Type == format.StanzaHPKE {
			if kem, id, ok := format.PeekHPKE(st.Body, h.Anonymous()); ok {
				s.Suite, s.KeyID = fanseal.Suite(kem).String(), hex.EncodeToString(id)
			}
		}
		rep.Recipients = append(rep.Recipients, s)
	}
	n, err := io.Copy(io.Discard, br)
	if err != nil {
		return describe(err)
	}
	rep.Chunks, rep.PayloadSize = stream.PlaintextSize(n)
	if *asJSON {
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
		fmt.Fprintf(stdout, "  %4d  %-16s %s\n", i, s.Suite, s.KeyID)
	}
	fmt.Fprintf(stdout, "header:      %d bytes\n", rep.HeaderSize)
	fmt.Fprintf(stdout, "payload:     %d bytes in %d chunks (not authenticated: inspect holds no key)\n", rep.PayloadSize, rep.Chunks)
	return nil
}
