package cli

import (
	"errors"
	"io"
	"unicode"
	"unicode/utf8"
)

// errBinaryToTerminal refuses a payload that is not text on a terminal,
// as age refuses binary output there.
var errBinaryToTerminal = errors.New("refusing to output binary to the terminal: the payload is not text; write it with -o FILE or through a pipe, or force it with -o -")

// A textGuard passes text through to w, and refuses, from the first write
// that is not text on, everything: so a terminal gets the payload only if
// it is text (UTF-8 without control characters but tab, newline and
// carriage return), never escape sequences or binary.
type textGuard struct {
	w     io.Writer
	carry []byte // the start of a character split between writes
}

func (g *textGuard) Write(p []byte) (int, error) {
	b := append(g.carry, p...)
	end := len(b)
	// Hold back a character cut at the end of this write.
	for i := max(0, len(b)-utf8.UTFMax+1); i < len(b); i++ {
		if utf8.RuneStart(b[i]) && !utf8.FullRune(b[i:]) {
			end = i
			break
		}
	}
	if !isText(b[:end]) {
		return 0, errBinaryToTerminal
	}
	if _, err := g.w.Write(b[:end]); err != nil {
		return 0, err
	}
	g.carry = append(g.carry[:0], b[end:]...)
	return len(p), nil
}

// Close refuses a payload that ends inside a character.
func (g *textGuard) Close() error {
	if len(g.carry) > 0 {
		return errBinaryToTerminal
	}
	return nil
}

// isText reports whether b is UTF-8 text without control characters other
// than tab, newline and carriage return.
func isText(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			return false
		}
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
		b = b[n:]
	}
	return true
}
