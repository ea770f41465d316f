package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/fanseal/fanseal/internal/format"
)

// A headerTap passes an envelope through to w and keeps the bytes of its
// header, so that encrypt -v can say what it wrote.
type headerTap struct {
	w      io.Writer
	buf    []byte
	next   int // the length at which to try parsing again
	header *format.Header
}

func (t *headerTap) Write(p []byte) (int, error) {
	if t.header == nil && len(t.buf) < format.MaxHeaderSize+format.MACSize {
		t.buf = append(t.buf, p...)
		if len(t.buf) >= max(t.next, format.PreambleSize) {
			t.parse()
			t.next = 2 * len(t.buf) // parsing again only as the buffer doubles keeps the cost linear
		}
	}
	return t.w.Write(p)
}

// parse tries to read the header from what has been written.
func (t *headerTap) parse() {
	if h, _, err := format.ParseHeader(t.buf); err == nil {
		t.header, t.buf = h, nil
	}
}

// Header returns the envelope's header, once the envelope is written.
func (t *headerTap) Header() *format.Header {
	if t.header == nil {
		t.parse()
	}
	return t.header
}

// reportSealed writes to w who the envelope is for, the keys given more
// than once, and the stanzas of h by type and suite.
func reportSealed(w io.Writer, list []*namedRecipient, h *format.Header) {
	fmt.Fprintf(w, "fanseal: sealed for %s:\n", plural(len(list), "recipient"))
	for _, n := range list {
		id := n.KeyID()
		line := fmt.Sprintf("    %-16s %x  %s", n.Type(), id, n.src.describe())
		if len(n.also) > 0 {
			also := make([]string, len(n.also))
			for i, s := range n.also {
				also[i] = s.String()
			}
			line += " (also given as " + strings.Join(also, ", ") + ")"
		}
		fmt.Fprintln(w, line)
	}
	if h == nil {
		return
	}
	recipients, shared := stanzas(h)
	counts := map[string]int{}
	for _, s := range recipients {
		counts[s.Type+" ("+s.Suite+")"]++
	}
	for _, s := range shared {
		counts["ephemeral-key ("+s+")"]++
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	what := "with key identifiers"
	switch {
	case h.Private():
		what = "private: tags instead of key identifiers"
	case h.Anonymous():
		what = "anonymous: no key identifiers"
	}
	fmt.Fprintf(w, "fanseal: %s, %s: %s; header %d bytes\n", plural(len(recipients)+len(shared), "stanza"), what, strings.Join(parts, ", "), len(h.Raw)+format.MACSize)
}

// plural returns "1 recipient", "2 recipients".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
