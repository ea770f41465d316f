// Package armor implements the text form of a fanseal envelope: a PEM-like
// block of standard base64 (RFC 4648, padded) in lines of exactly 64
// characters, the last one shorter or equal,
//
//	-----BEGIN FANSEAL ENVELOPE-----
//	RkFOU0VBTAEAAAIx...
//	-----END FANSEAL ENVELOPE-----
//
// The decoder is strict: no headers, no blank lines, no characters outside
// the alphabet, canonical padding, lines of the exact width, LF or CRLF line
// ends, and nothing but whitespace after the end line. Both directions
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

	columns    = 64
	bytesLine  = columns / 4 * 3 // 48 bytes per full line
	maxTrailer = 1024            // whitespace allowed after the footer
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

// NewWriter returns a Writer that writes an armored envelope to dst.
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
	src  *bufio.Reader
	line int
	out  []byte
	buf  [bytesLine]byte
	err  error
}

// NewReader returns a Reader that decodes the armored envelope in src.
// Errors wrap fanseal's ErrMalformed (or ErrTruncated for a missing
// footer) with the offending line number.
func NewReader(src io.Reader) *Reader {
	return &Reader{src: bufio.NewReaderSize(src, 4096)}
}

// IsArmored reports whether b, the first len(Header) or more bytes of an
// input, start an armored envelope.
func IsArmored(b []byte) bool {
	return bytes.HasPrefix(b, []byte(Header))
}

func (r *Reader) fail(kind error, format string, a ...any) error {
	return fmt.Errorf("%w: armor line %d: %s", kind, r.line, fmt.Sprintf(format, a...))
}

// readLine returns the next line without its LF or CRLF ending.
func (r *Reader) readLine() ([]byte, error) {
	r.line++
	l, err := r.src.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return nil, r.fail(errs.Malformed, "line too long")
	case err == io.EOF && len(l) == 0:
		return nil, r.fail(errs.Truncated, "missing %q", Footer)
	case err == io.EOF:
		return nil, r.fail(errs.Truncated, "line has no end")
	case err != nil:
		return nil, err
	}
	l = l[:len(l)-1]
	if len(l) > 0 && l[len(l)-1] == '\r' {
		l = l[:len(l)-1]
	}
	return l, nil
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
	if r.line == 0 {
		l, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if string(l) != Header {
			return nil, r.fail(errs.Malformed, "want %q", Header)
		}
	}
	l, err := r.readLine()
	if err != nil {
		return nil, err
	}
	if string(l) == Footer {
		if r.line == 2 {
			return nil, r.fail(errs.Malformed, "empty armor")
		}
		return nil, r.trailer()
	}
	if len(l) > columns || len(l) == 0 || len(l)%4 != 0 {
		return nil, r.fail(errs.Malformed, "line of %d characters (want %d, or a shorter last line)", len(l), columns)
	}
	n, err := enc.Decode(r.buf[:], l)
	if err != nil {
		return nil, r.fail(errs.Malformed, "invalid base64")
	}
	if len(l) < columns || l[len(l)-1] == '=' {
		// The last data line: the footer must follow.
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

// trailer checks that only whitespace follows the footer.
func (r *Reader) trailer() error {
	rest, err := io.ReadAll(io.LimitReader(r.src, maxTrailer+1))
	if err != nil {
		return err
	}
	if len(rest) > maxTrailer || len(bytes.TrimSpace(rest)) != 0 {
		return r.fail(errs.Malformed, "data after %q", Footer)
	}
	return io.EOF
}
