package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
)

// ageInspection is what inspect prints of an age file: what age-inspect
// (filippo.io/age v1.3.2) says, in the same JSON fields, and the chunk
// count. Its JSON form is stable.
type ageInspection struct {
	Format      string   `json:"format"` // "age"
	Version     string   `json:"version"`
	PostQuantum string   `json:"postquantum"` // "yes", "no" or "unknown"
	Armored     bool     `json:"armor"`
	StanzaTypes []string `json:"stanza_types"`
	Sizes       struct {
		Header   int64 `json:"header"`
		Armor    int64 `json:"armor"`    // the text armor adds
		Overhead int64 `json:"overhead"` // the payload nonce and the chunks' tags
		// age writes no padding, so the payload size is exact.
		MinPayload int64 `json:"min_payload"`
		MaxPayload int64 `json:"max_payload"`
		MinPadding int64 `json:"min_padding"`
		MaxPadding int64 `json:"max_padding"`
	} `json:"sizes"`
	Chunks int64 `json:"chunks"`
}

// age's payload: a 16-byte nonce, then chunks of 64 KiB of plaintext,
// each with a 16-byte tag; only an empty payload has an empty chunk.
const (
	ageNonceSize = 16
	ageChunkSize = 64 << 10
	ageTagSize   = 16
)

// ageClassical and agePostQuantum are the stanza types that do, and do
// not, leave a file open to a quantum computer, as age-inspect lists them.
var (
	ageClassical   = []string{"X25519", "ssh-rsa", "ssh-ed25519", "p256tag", "piv-p256"}
	agePostQuantum = []string{"mlkem768x25519", "scrypt", "mlkem768p256tag"}
)

// inspectAge describes the age file in br, read to its end, named name
// ("" for standard input); naming says keys were given to name stanzas,
// which age's stanzas do not allow.
func inspectAge(br *bufio.Reader, name string, asJSON, naming bool, stdout io.Writer) error {
	rep, err := inspectAgeFile(br)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if name == "" || name == "-" {
		name = "standard input"
	}
	fmt.Fprintf(stdout, "age file, version %q (%s)\n", rep.Version, name)
	fmt.Fprintf(stdout, "armored:     %v\n", rep.Armored)
	if naming {
		fmt.Fprintf(stdout, "recipients:  %d (age stanzas carry no key identifiers, so the keys given cannot name them)\n", len(rep.StanzaTypes))
	} else {
		fmt.Fprintf(stdout, "recipients:  %d (age stanzas carry no key identifiers: only their types can be told)\n", len(rep.StanzaTypes))
	}
	for i, t := range rep.StanzaTypes {
		fmt.Fprintf(stdout, "  %4d  %s\n", i, t)
	}
	switch rep.PostQuantum {
	case "yes":
		fmt.Fprintf(stdout, "post-quantum: yes\n")
	case "no":
		fmt.Fprintf(stdout, "post-quantum: no (a quantum computer could open it)\n")
	default:
		fmt.Fprintf(stdout, "post-quantum: unknown (a stanza type fanseal does not know)\n")
	}
	fmt.Fprintf(stdout, "header:      %d bytes\n", rep.Sizes.Header)
	if rep.Armored {
		fmt.Fprintf(stdout, "armor:       %d bytes\n", rep.Sizes.Armor)
	}
	fmt.Fprintf(stdout, "overhead:    %d bytes (nonce and tags)\n", rep.Sizes.Overhead)
	fmt.Fprintf(stdout, "payload:     %d bytes in %s (not authenticated: inspect holds no key)\n", rep.Sizes.MinPayload, plural(int(rep.Chunks), "chunk"))
	return nil
}

// inspectAgeFile reads the age file in br to its end and describes it,
// parsing the header with age's own parser (age.ExtractHeader).
func inspectAgeFile(br *bufio.Reader) (*ageInspection, error) {
	rep := &ageInspection{Format: "age", Version: "age-encryption.org/v1", PostQuantum: "yes", StanzaTypes: []string{}}
	raw := &countingReader{r: br}
	var src io.Reader = bufio.NewReader(raw)
	if ageArmored(src.(*bufio.Reader)) {
		rep.Armored = true
		src = armor.NewReader(src)
	}
	body := &countingReader{r: src}
	hdr, err := age.ExtractHeader(body)
	if err != nil {
		return nil, describeAge(err, nil)
	}
	if _, err := io.Copy(io.Discard, body); err != nil {
		return nil, describeAge(err, nil)
	}
	rep.Sizes.Header = int64(len(hdr))
	for line := range bytes.Lines(hdr) {
		if rest, ok := bytes.CutPrefix(line, []byte("-> ")); ok {
			t, _, _ := strings.Cut(strings.TrimSuffix(string(rest), "\n"), " ")
			rep.StanzaTypes = append(rep.StanzaTypes, t)
			switch {
			case slices.Contains(ageClassical, t):
				rep.PostQuantum = "no"
			case slices.Contains(agePostQuantum, t):
			case rep.PostQuantum != "no":
				rep.PostQuantum = "unknown"
			}
		}
	}
	if rep.Armored {
		rep.Sizes.Armor = raw.n - body.n
	}
	payload := body.n - rep.Sizes.Header - ageNonceSize
	chunks, ok := ageChunks(payload)
	if !ok {
		return nil, describeAge(fmt.Errorf("truncated or corrupted payload: %d bytes after the header cannot be an age payload", body.n-rep.Sizes.Header), nil)
	}
	rep.Chunks = chunks
	rep.Sizes.Overhead = ageNonceSize + chunks*ageTagSize
	rep.Sizes.MinPayload = payload - chunks*ageTagSize
	rep.Sizes.MaxPayload = rep.Sizes.MinPayload
	return rep, nil
}

// ageChunks returns how many chunks an age payload of size bytes (after
// the nonce) holds, or false if no payload has that size.
func ageChunks(size int64) (int64, bool) {
	if size < ageTagSize {
		return 0, false
	}
	chunks := (size + ageChunkSize + ageTagSize - 1) / (ageChunkSize + ageTagSize)
	plain := size - chunks*ageTagSize
	want := max((plain+ageChunkSize-1)/ageChunkSize, 1)
	return chunks, want == chunks
}

// A countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
