// Package stream implements the chunked payload encryption of a fanseal
// envelope: the STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár,
// "Online Authenticated-Encryption and its Nonce-Reuse Misuse-Resistance",
// CRYPTO 2015) over a 96-bit-nonce AEAD.
//
// The payload is cut into 64 KiB chunks. Chunk i is sealed with the nonce
// I2OSP(i, 11) || flag, where flag is 0x01 for the last chunk and 0x00
// otherwise. Every chunk but the last is full; the last holds 0 to 64 KiB
// and is empty only when the whole payload is. Nonce uniqueness: the
// payload key is derived from a fresh random file key and a fresh random
// nonce for every envelope, so a (key, nonce) pair is never reused; within
// one payload the counter never repeats and never wraps (Writer refuses
// 2^64 chunks, far below the 2^88 the nonce could count). The final flag
// makes truncation at a chunk boundary detectable (ErrTruncated), and the
// counter makes reordering, duplication and splicing of chunks fail
// authentication. A stream cut inside a chunk fails authentication too.
package stream

import (
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/fanseal/fanseal/internal/errs"
)

// ChunkSize is the plaintext size of every chunk but the last.
const ChunkSize = 64 << 10

const (
	overhead     = 16
	encChunkSize = ChunkSize + overhead
	lastFlag     = 0x01
)

// SealedSize returns the size of the sealed stream of an n-byte payload.
func SealedSize(n int) int {
	chunks := max(1, (n+ChunkSize-1)/ChunkSize)
	return n + chunks*overhead
}

// PlaintextSize returns the number of chunks and the plaintext size of a
// sealed stream of n bytes, assuming it is well formed.
func PlaintextSize(n int64) (chunks, size int64) {
	chunks = max(1, (n+encChunkSize-1)/encChunkSize)
	return chunks, max(0, n-chunks*overhead)
}

func nonce(n *[12]byte, counter uint64, last bool) {
	clear(n[:3])
	binary.BigEndian.PutUint64(n[3:11], counter)
	n[11] = 0
	if last {
		n[11] = lastFlag
	}
}

var (
	// errTooLarge: the chunk counter would wrap, so a nonce would repeat.
	errTooLarge = errors.New("stream: payload too large")
	errClosed   = errors.New("stream: write after Close")
)

// A Writer encrypts a payload written to it. Close must be called to seal
// the last chunk.
type Writer struct {
	a       cipher.AEAD
	dst     io.Writer
	buf     []byte // plaintext of the pending chunk, sealed in place
	counter uint64
	nonce   [12]byte
	err     error
}

// NewWriter returns a Writer sealing to dst with a. The AEAD must take a
// 12-byte nonce and add a 16-byte tag.
func NewWriter(a cipher.AEAD, dst io.Writer) *Writer {
	return &Writer{a: a, dst: dst, buf: make([]byte, 0, encChunkSize)}
}

// Write buffers p, sealing and writing every chunk that is full and known
// not to be the last.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	total := len(p)
	for len(p) > 0 {
		if len(w.buf) == ChunkSize {
			// More data follows a full chunk, so it is not the last.
			if err := w.flush(false); err != nil {
				return total - len(p), err
			}
		}
		n := min(ChunkSize-len(w.buf), len(p))
		w.buf = append(w.buf, p[:n]...)
		p = p[n:]
	}
	return total, nil
}

func (w *Writer) flush(last bool) error {
	if w.counter == ^uint64(0) {
		w.err = errTooLarge
		return w.err
	}
	nonce(&w.nonce, w.counter, last)
	out := w.a.Seal(w.buf[:0], w.nonce[:], w.buf, nil)
	if _, err := w.dst.Write(out); err != nil {
		w.err = err
		return err
	}
	w.counter++
	w.buf = w.buf[:0]
	return nil
}

// Close seals and writes the last chunk. It does not close the underlying
// writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	err := w.flush(true)
	if err == nil {
		w.err = errClosed
	}
	return err
}

// A Reader decrypts a payload. It returns plaintext only from chunks that
// authenticated, and reports a missing last chunk as errs.Truncated.
type Reader struct {
	a       cipher.AEAD
	src     io.Reader
	in      []byte // ciphertext, one chunk plus one byte of look-ahead
	have    int    // look-ahead bytes carried in in[:have]
	plain   []byte // plaintext of the current chunk
	out     []byte // unread part of plain
	counter uint64
	err     error // sticky; io.EOF after the last chunk
}

// NewReader returns a Reader decrypting src with a.
func NewReader(a cipher.AEAD, src io.Reader) *Reader {
	return &Reader{a: a, src: src, in: make([]byte, encChunkSize+1), plain: make([]byte, 0, ChunkSize)}
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.out, r.err = r.next()
		if r.err != nil && r.err != io.EOF {
			r.out = nil
		}
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// next reads and opens one chunk. It returns io.EOF with the last chunk.
func (r *Reader) next() ([]byte, error) {
	n, err := io.ReadFull(r.src, r.in[r.have:])
	n += r.have
	r.have = 0
	last := false
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		last = true
	case err != nil:
		return nil, fmt.Errorf("reading the payload: %w", err)
	}
	chunk := r.in[:min(n, encChunkSize)]
	out, err := openChunk(r.a, r.plain[:0], chunk, r.counter, last)
	if err != nil {
		return nil, err
	}
	r.counter++
	if !last {
		r.in[0] = r.in[encChunkSize]
		r.have = 1
		return out, nil
	}
	return out, io.EOF
}

// Seal encrypts a whole payload held in memory, appending the sealed stream
// to dst. The output is byte-identical to a Writer's.
func Seal(a cipher.AEAD, dst, pt []byte) []byte {
	dst = slices.Grow(dst, SealedSize(len(pt)))
	var n [12]byte
	for counter := uint64(0); ; counter++ {
		chunk := pt[:min(len(pt), ChunkSize)]
		pt = pt[len(chunk):]
		nonce(&n, counter, len(pt) == 0)
		dst = a.Seal(dst, n[:], chunk, nil)
		if len(pt) == 0 {
			return dst
		}
	}
}

// Open decrypts a whole sealed stream held in memory, appending the
// plaintext to dst. It returns no plaintext unless every chunk
// authenticated.
func Open(a cipher.AEAD, dst, ct []byte) ([]byte, error) {
	if len(ct) == 0 {
		return nil, fmt.Errorf("%w: payload ends before chunk 0", errs.Truncated)
	}
	start := len(dst)
	_, size := PlaintextSize(int64(len(ct)))
	dst = slices.Grow(dst, int(size))
	for counter := uint64(0); len(ct) > 0; counter++ {
		chunk := ct[:min(len(ct), encChunkSize)]
		ct = ct[len(chunk):]
		var err error
		if dst, err = openChunk(a, dst, chunk, counter, len(ct) == 0); err != nil {
			clear(dst[start:cap(dst)])
			return nil, err
		}
	}
	return dst, nil
}

// openChunk opens chunk number counter, appending its plaintext to dst. It
// enforces that only the first chunk may be empty, and tells a stream cut
// at a chunk boundary (ErrTruncated) from a chunk that does not open
// (ErrAuthentication), which is also what a chunk cut short is, whatever
// is left of it: a reader cannot tell a last chunk cut after 20 bytes
// from a corrupted one, so none is told apart by its length.
func openChunk(a cipher.AEAD, dst, chunk []byte, counter uint64, last bool) ([]byte, error) {
	if len(chunk) == 0 {
		// Only a payload of no bytes at all gets here: chunk 0 is missing.
		return nil, fmt.Errorf("%w: payload ends before chunk %d", errs.Truncated, counter)
	}
	if len(chunk) < overhead {
		return nil, fmt.Errorf("%w: payload chunk %d is %d bytes, shorter than its %d-byte tag", errs.Authentication, counter, len(chunk), overhead)
	}
	if counter == ^uint64(0) {
		return nil, fmt.Errorf("%w: payload has too many chunks", errs.Malformed)
	}
	var n [12]byte
	nonce(&n, counter, last)
	// Never in place: a failed Open leaves the ciphertext intact for the
	// truncation check below.
	out, err := a.Open(dst, n[:], chunk, nil)
	if err != nil {
		if last && len(chunk) == encChunkSize && opensAsMiddle(a, chunk, counter) {
			return nil, fmt.Errorf("%w: payload ends after chunk %d, which is not the last", errs.Truncated, counter)
		}
		return nil, fmt.Errorf("%w: payload chunk %d", errs.Authentication, counter)
	}
	if last && len(chunk) == overhead && counter > 0 {
		return nil, fmt.Errorf("%w: empty last chunk after chunk %d", errs.Malformed, counter-1)
	}
	return out, nil
}

// opensAsMiddle reports whether a full chunk that failed to open as the last
// one opens as a middle chunk, which means the stream was cut after it. The
// check runs only on the failure path, and decrypts into a scratch copy so
// the caller never sees the plaintext.
func opensAsMiddle(a cipher.AEAD, chunk []byte, counter uint64) bool {
	var n [12]byte
	nonce(&n, counter, false)
	scratch := make([]byte, 0, len(chunk))
	_, err := a.Open(scratch, n[:], chunk, nil)
	clear(scratch[:cap(scratch)])
	return err == nil
}
