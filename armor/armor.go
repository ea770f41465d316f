// Package armor implements the text form of a fanseal envelope: a PEM-like
// block of standard base64 (RFC 4648, padded) in lines of exactly 64
// characters, the last one shorter or equal,
//
//	-----BEGIN FANSEAL ENVELOPE-----
//	RkFOU0VBTAEAAAIx...
//	-----END FANSEAL ENVELOPE-----
//
// An envelope has one armored text, up to what an editor adds around it
// and what age's armor reader (v1.3.2) tolerates too: white space lines
// before the begin line, white space after the end line, LF or CRLF line
// ends (see NewReader). Otherwise the decoder is strict: no headers, no blank lines,
// no characters outside the alphabet inside the text (a carriage return
// included), canonical padding, lines of the exact width. Both directions
// stream in constant memory.
package armor

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/fanseal/fanseal/internal/errs"
)

const (
	// Header is the first line of an armored envelope.
	Header = "-----BEGIN FANSEAL ENVELOPE-----"
	// Footer is the last line of an armored envelope.
	Footer = "-----END FANSEAL ENVELOPE-----"

	columns   = 64
	bytesLine = columns / 4 * 3 // 48 bytes per full line
	// maxWhitespace bounds the white space skipped before the begin line
	// (at most this many bytes) and after the end line (fewer), as age's
	// armor reader does.
	maxWhitespace = 1024
)

var enc = base64.StdEncoding.Strict()

// A Writer armors what is written to it. Close writes the last line and the
// footer; it does not close the underlying writer.
type Writer struct {
	dst     io.Writer
	buf     [bytesLine]byte
	n       int
	line    [columns + 1]byte
	started bool
	err     error
}

// NewWriter returns a Writer that writes an armored envelope to dst. It
// holds one line (48 bytes in, 65 out) and allocates nothing per Write.
func NewWriter(dst io.Writer) *Writer {
	return &Writer{dst: dst}
}

// Write implements io.Writer.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if err := w.start(); err != nil {
		return 0, err
	}
	total := len(p)
	for len(p) > 0 {
		k := copy(w.buf[w.n:], p)
		w.n += k
		p = p[k:]
		if w.n == bytesLine {
			if err := w.writeLine(); err != nil {
				return total - len(p), err
			}
		}
	}
	return total, nil
}

func (w *Writer) start() error {
	if !w.started {
		w.started = true
		_, w.err = io.WriteString(w.dst, Header+"\n")
	}
	return w.err
}

func (w *Writer) writeLine() error {
	m := enc.EncodedLen(w.n)
	enc.Encode(w.line[:], w.buf[:w.n])
	w.line[m] = '\n'
	w.n = 0
	_, w.err = w.dst.Write(w.line[:m+1])
	return w.err
}

// Close writes the final partial line and the footer.
func (w *Writer) Close() error {
	if err := w.start(); err != nil {
		return err
	}
	if w.n > 0 {
		if err := w.writeLine(); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w.dst, Footer+"\n"); err != nil {
		w.err = err
		return err
	}
	w.err = errors.New("armor: write after Close")
	return nil
}

// A Reader decodes an armored envelope.
type Reader struct {
	src     *bufio.Reader
	line    int
	started bool // the begin line was read
	out     []byte
	buf     [bytesLine]byte
	err     error
}

// NewReader returns a Reader that decodes the armored envelope in src.
// Errors wrap fanseal's ErrMalformed (or ErrTruncated for input that ends
// before the end line) with the offending line number.
//
// It tolerates a subset of what age's armor reader (filippo.io/age/armor)
// does: exactly what age v1.3.2's does, which is less than earlier
// versions, whose base64 decoder skips CRs inside a short last line. That
// is lines of white space before the begin line (at most 1 024 bytes of
// them), LF or CRLF at the end of each line, no line end or a lone CR
// after the end line, and white space after it (at most 1 023 bytes).
// White space is Unicode's, as bytes.TrimSpace has it. Every line between
// the begin and end lines is base64 with no other character, a carriage
// return included.
//
// Bounds: a Reader holds a 4 KiB buffer of input and one decoded line of
// 48 bytes; a line longer than the buffer is refused, having read at most
// the buffer. It allocates at most 12 KiB in all, whatever the length of
// the input, and reads at most 4 KiB past the white space it allows
// before refusing too much of it.
func NewReader(src io.Reader) *Reader {
	return &Reader{src: bufio.NewReaderSize(src, 4096)}
}

// IsArmored reports whether b, the start of an input, starts an armored
// envelope: the 32 bytes of the begin line at the start of the first line
// that is not white space, after at most the white space a Reader skips
// (docs/FORMAT.md, "Armored or binary"). b should hold the first
// DetectSize bytes of the input, or all of it if shorter.
func IsArmored(b []byte) bool {
	skipped := 0
	for {
		line, rest, ok := bytes.Cut(b, []byte("\n"))
		blank, over := blankLine(line, &skipped)
		switch {
		case !ok || !blank:
			return bytes.HasPrefix(b, []byte(Header))
		case over:
			return false
		}
		b = rest
	}
}

// blankLine reports whether line, without its LF, is white space, which
// a Reader skips before the begin line, and then counts it (and its line
// end, less a CR) in *skipped: over reports that *skipped has passed
// maxWhitespace. IsArmored and Reader skip by this one rule.
func blankLine(line []byte, skipped *int) (blank, over bool) {
	if len(bytes.TrimSpace(line)) != 0 {
		return false, false
	}
	*skipped += len(trimCR(line)) + 1
	return true, *skipped > maxWhitespace
}

// DetectSize is how many bytes of an input IsArmored needs to see: the
// white space a Reader skips before the begin line, and that line. The
// skipped lines count at most maxWhitespace bytes, but a CR before a
// line's LF is not counted, so they span up to twice that: 1 024 lines of
// CRLF alone.
const DetectSize = 2*maxWhitespace + len(Header)

func trimCR(l []byte) []byte { return bytes.TrimSuffix(l, []byte("\r")) }

func (r *Reader) fail(kind error, format string, a ...any) error {
	return fmt.Errorf("%w: armor line %d: %s", kind, r.line, fmt.Sprintf(format, a...))
}

// readLine returns the next line without its LF or CRLF ending. The last
// line of the input may have no line end.
func (r *Reader) readLine() ([]byte, error) {
	l, err := r.readRawLine()
	return trimCR(l), err
}

// readRawLine returns the next line without its LF, a CR before it kept,
// as blankLine counts it.
func (r *Reader) readRawLine() ([]byte, error) {
	r.line++
	l, err := r.src.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return nil, r.fail(errs.Malformed, "line too long")
	case err == io.EOF && len(l) == 0:
		return nil, r.fail(errs.Truncated, "missing %q", Footer)
	case err != nil && err != io.EOF:
		return nil, err
	}
	return bytes.TrimSuffix(l, []byte("\n")), nil
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.out, r.err = r.next()
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

func (r *Reader) next() ([]byte, error) {
	for skipped := 0; !r.started; {
		raw, err := r.readRawLine()
		if err != nil {
			return nil, err
		}
		l := trimCR(raw)
		if blank, over := blankLine(raw, &skipped); over {
			return nil, r.fail(errs.Malformed, "more than %d bytes of white space before %q", maxWhitespace, Header)
		} else if blank {
			continue
		}
		if string(l) != Header {
			return nil, r.fail(errs.Malformed, "want %q", Header)
		}
		r.started = true
	}
	l, err := r.readLine()
	if err != nil {
		return nil, err
	}
	if string(l) == Footer {
		return nil, r.trailer()
	}
	if len(l) > columns || len(l) == 0 || len(l)%4 != 0 {
		return nil, r.fail(errs.Malformed, "line of %d characters (want %d, or a shorter last line)", len(l), columns)
	}
	if bytes.ContainsAny(l, "\r\n") {
		// The base64 decoder would skip them.
		return nil, r.fail(errs.Malformed, "carriage return inside a line")
	}
	n, err := enc.Decode(r.buf[:], l)
	if err != nil {
		return nil, r.fail(errs.Malformed, "invalid base64")
	}
	if n < bytesLine {
		// The last data line: the end line must follow.
		f, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if string(f) != Footer {
			return nil, r.fail(errs.Malformed, "want %q after a short line", Footer)
		}
		if err := r.trailer(); err != io.EOF {
			return nil, err
		}
		return r.buf[:n], io.EOF
	}
	return r.buf[:n], nil
}

// trailer checks that only white space, less than maxWhitespace bytes of
// it, follows the end line.
func (r *Reader) trailer() error {
	rest, err := io.ReadAll(io.LimitReader(r.src, maxWhitespace))
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return r.fail(errs.Malformed, "data after %q", Footer)
	}
	if len(rest) == maxWhitespace {
		return r.fail(errs.Malformed, "%d bytes or more of white space after %q", maxWhitespace, Footer)
	}
	return io.EOF
}
