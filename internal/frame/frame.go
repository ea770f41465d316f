// Package frame carries batches of items over a stream connection: each
// frame is length-prefixed, holds length-prefixed items, and is
// acknowledged by the receiver once it has decoded every item. fanseal's
// sending benchmarks and workloads put it on loopback TCP.
//
// A frame is a 4-byte big-endian payload length, then the payload: each
// item as a 4-byte big-endian length and its bytes. An acknowledgement is
// the 4-byte big-endian count of items decoded from the frame.
package frame

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// MaxPayload bounds a frame's payload (16 MiB); a larger declared length
// is refused before anything is allocated, and Serve grows its buffer
// only as a frame's bytes arrive.
const MaxPayload = 16 << 20

// Errors; match them with errors.Is.
var (
	ErrMalformed = errors.New("frame: malformed frame")
	ErrTooLarge  = errors.New("frame: frame too large")
	ErrAck       = errors.New("frame: acknowledgement does not match the frame")
)

// Append appends a frame holding items to dst.
func Append(dst []byte, items [][]byte) ([]byte, error) {
	n := 0
	for _, it := range items {
		n += 4 + len(it)
	}
	if n > MaxPayload {
		return dst, fmt.Errorf("%w: %d bytes", ErrTooLarge, n)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	for _, it := range items {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(it)))
		dst = append(dst, it...)
	}
	return dst, nil
}

// Decode calls item for each item of payload, in order, and returns their
// count. The slices alias payload. A truncated item is an error, and no
// item is passed on before the whole payload has been checked. It
// allocates nothing.
func Decode(payload []byte, item func([]byte)) (int, error) {
	n := 0
	for rest := payload; len(rest) > 0; n++ {
		if len(rest) < 4 {
			return 0, fmt.Errorf("%w: %d bytes left, want a 4-byte length", ErrMalformed, len(rest))
		}
		l := binary.BigEndian.Uint32(rest)
		if uint64(l) > uint64(len(rest)-4) {
			return 0, fmt.Errorf("%w: item %d declares %d bytes, %d left", ErrMalformed, n, l, len(rest)-4)
		}
		rest = rest[4+l:]
	}
	for rest := payload; len(rest) > 0; {
		l := binary.BigEndian.Uint32(rest)
		item(rest[4 : 4+l])
		rest = rest[4+l:]
	}
	return n, nil
}

// A Client sends frames on a connection and waits for each
// acknowledgement. Concurrent Sends take turns: one frame is in flight at
// a time. It holds one frame buffer, reused, as large as the largest frame
// it sent (at most MaxPayload + 4 bytes, with append's room) and a 4 KiB
// read buffer; a Send that fits the buffer allocates only its 4-byte
// acknowledgement.
type Client struct {
	mu   sync.Mutex
	conn io.ReadWriter
	r    *bufio.Reader
	buf  []byte
}

// NewClient returns a Client on conn.
func NewClient(conn io.ReadWriter) *Client {
	return &Client{conn: conn, r: bufio.NewReader(conn)}
}

// Send writes one frame holding items and waits for its acknowledgement.
// If ctx ends first and the connection has deadlines (a net.Conn), the
// I/O is cut short and Send returns ctx's error; the connection is then
// unusable. Any error leaves the connection in an unknown state: close it.
func (c *Client) Send(ctx context.Context, items [][]byte) (err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf, err = Append(c.buf[:0], items); err != nil {
		return err
	}
	if nc, ok := c.conn.(net.Conn); ok && ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
		defer func() {
			if !stop() {
				err = ctx.Err()
			}
		}()
	}
	if _, err = c.conn.Write(c.buf); err != nil {
		return err
	}
	var ack [4]byte
	if _, err = io.ReadFull(c.r, ack[:]); err != nil {
		return err
	}
	if got := binary.BigEndian.Uint32(ack[:]); got != uint32(len(items)) {
		return fmt.Errorf("%w: %d items acknowledged, %d sent", ErrAck, got, len(items))
	}
	return nil
}

// Serve reads frames from conn until it ends, calls item for every item
// of each frame, and acknowledges each frame after its last item. The
// item slices are valid only during the call. It returns nil at a clean
// end of the stream, between frames, and io.ErrUnexpectedEOF at an end
// inside a frame.
//
// Bounds: one frame at a time, of at most MaxPayload bytes. Serve holds
// one payload buffer, reused from frame to frame, and a 4 KiB read buffer:
// the payload buffer doubles from 4 KiB as a frame's bytes arrive, never
// past its declared length, so it holds at most the largest payload and
// 8 KiB (16 MiB + 12 KiB in all at the limit), and a frame that does not
// fit it allocates less than twice its payload. A declared length with no
// bytes behind it costs at most 4 KiB.
func Serve(conn io.ReadWriter, item func([]byte)) error {
	r := bufio.NewReader(conn)
	var hdr [4]byte
	var payload []byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		l := binary.BigEndian.Uint32(hdr[:])
		if l > MaxPayload {
			return fmt.Errorf("%w: %d bytes declared", ErrTooLarge, l)
		}
		var err error
		if payload, err = readPayload(r, payload, int(l)); err != nil {
			return err
		}
		n, err := Decode(payload, item)
		if err != nil {
			return err
		}
		if _, err := conn.Write(binary.BigEndian.AppendUint32(hdr[:0], uint32(n))); err != nil {
			return err
		}
	}
}

// readPayload reads n bytes into buf, reusing its capacity, and grows it
// only as bytes arrive: a declared length costs no memory until its bytes
// come. A stream that ends first is io.ErrUnexpectedEOF.
func readPayload(r io.Reader, buf []byte, n int) ([]byte, error) {
	buf = buf[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			// Double, from 4 KiB, but never beyond n (slices.Grow would
			// round up by append's growth, past n by up to a quarter).
			grown := make([]byte, len(buf), min(n, max(2*len(buf), 4<<10)))
			buf = grown[:copy(grown, buf)]
		}
		k, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+k]
		switch {
		case err == io.EOF && len(buf) < n:
			return buf, io.ErrUnexpectedEOF
		case err != nil && err != io.EOF:
			return buf, err
		}
	}
	return buf, nil
}

// Loopback starts a receiver on a loopback TCP port that serves one
// connection with Serve, and returns a connection to it. stop closes the
// connection, waits for the receiver to return, and returns its error.
func Loopback(item func([]byte)) (conn net.Conn, stop func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	return loopback(ln, item)
}

// loopback dials ln, serves the connection it accepts from the dialed
// end, and closes ln.
func loopback(ln net.Listener, item func([]byte)) (conn net.Conn, stop func() error, err error) {
	defer ln.Close()
	if conn, err = net.Dial("tcp", ln.Addr().String()); err != nil {
		return nil, nil, err
	}
	// The dialed connection waits in the listener's queue until accepted:
	// accept it here, before the deferred Close resets it. Another process
	// may connect to the port too, so serve only the connection whose far
	// end is conn.
	if d, ok := ln.(interface{ SetDeadline(time.Time) error }); ok {
		d.SetDeadline(time.Now().Add(10 * time.Second))
	}
	var c net.Conn
	for {
		if c, err = ln.Accept(); err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("frame: accepting the loopback connection: %w", err)
		}
		if c.RemoteAddr().String() == conn.LocalAddr().String() {
			break
		}
		c.Close()
	}
	done := make(chan error, 1)
	go func() {
		defer c.Close()
		done <- Serve(c, item)
	}()
	return conn, func() error { conn.Close(); return <-done }, nil
}
