package frame

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestAppend checks the encoding byte for byte against the format in the
// package doc.
func TestAppend(t *testing.T) {
	got, err := Append([]byte{9}, [][]byte{[]byte("ab"), {}, []byte("c")})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{9, 0, 0, 0, 15, 0, 0, 0, 2, 'a', 'b', 0, 0, 0, 0, 0, 0, 0, 1, 'c'}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %x, want %x", got, want)
	}
	if _, err := Append(nil, [][]byte{make([]byte, MaxPayload)}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized: %v", err)
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, p := range [][]byte{{0}, {0, 0, 0, 1}, {0, 0, 0, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff, 1}} {
		calls := 0
		if _, err := Decode(p, func([]byte) { calls++ }); !errors.Is(err, ErrMalformed) || calls != 0 {
			t.Errorf("%x: %v after %d items", p, err, calls)
		}
	}
}

// FuzzDecode checks that Decode never panics, passes on items only from a
// payload it accepts, and that re-encoding the items gives the payload back.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 'a', 'b'})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xfc})
	f.Fuzz(func(t *testing.T, payload []byte) {
		var items [][]byte
		n, err := Decode(payload, func(it []byte) { items = append(items, it) })
		if err != nil {
			if len(items) != 0 {
				t.Fatal("items passed on from a malformed payload")
			}
			return
		}
		again, err := Append(nil, items)
		if err != nil || n != len(items) || !bytes.Equal(again[4:], payload) {
			t.Fatalf("round trip: %v, %d items, %x", err, n, again)
		}
	})
}

// TestRoundTrip sends frames over loopback TCP to Serve and checks the
// items and acknowledgements.
func TestRoundTrip(t *testing.T) {
	var got []string
	conn, stop, err := Loopback(func(it []byte) { got = append(got, string(it)) })
	if err != nil {
		t.Fatal(err)
	}
	client := NewClient(conn)
	frames := [][][]byte{{[]byte("one")}, {[]byte("two"), []byte("three")}, {}}
	for _, f := range frames {
		if err := client.Send(t.Context(), f); err != nil {
			t.Fatal(err)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"one", "two", "three"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestLoopbackServes: the connection Loopback returns is served, also
// when the receiver is slow to accept (it once closed the listener before
// accepting, and the send met a reset) and when someone else connects to
// the port first.
func TestLoopbackServes(t *testing.T) {
	for _, name := range []string{"slow", "stranger"} {
		t.Run("case="+name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			l := &testListener{Listener: ln}
			if name == "stranger" {
				if l.stranger, err = net.Dial("tcp", ln.Addr().String()); err != nil {
					t.Fatal(err)
				}
				defer l.stranger.Close()
			}
			conn, stop, err := loopback(l, func([]byte) {})
			if err != nil {
				t.Fatal(err)
			}
			err = NewClient(conn).Send(t.Context(), [][]byte{[]byte("x")})
			if serr := stop(); err == nil {
				err = serr
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A testListener accepts only after a pause.
type testListener struct {
	net.Listener
	stranger net.Conn
}

func (l *testListener) Accept() (net.Conn, error) {
	time.Sleep(50 * time.Millisecond)
	return l.Listener.Accept()
}

// TestSendCanceled stalls the receiver: ending the context cuts the send
// short.
func TestSendCanceled(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- NewClient(a).Send(ctx, [][]byte{[]byte("x")}) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// fakeConn answers every write with a fixed acknowledgement.
type fakeConn struct {
	io.Reader
	io.Writer
}

func TestBadAck(t *testing.T) {
	c := NewClient(fakeConn{bytes.NewReader([]byte{0, 0, 0, 5}), io.Discard})
	if err := c.Send(context.Background(), [][]byte{[]byte("x")}); !errors.Is(err, ErrAck) {
		t.Fatalf("got %v, want ErrAck", err)
	}
	c = NewClient(fakeConn{bytes.NewReader(nil), io.Discard})
	if err := c.Send(context.Background(), [][]byte{[]byte("x")}); !errors.Is(err, io.EOF) {
		t.Fatalf("got %v, want EOF", err)
	}
	if err := c.Send(context.Background(), [][]byte{make([]byte, MaxPayload)}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}

func TestServeRefuses(t *testing.T) {
	huge := binary.BigEndian.AppendUint32(nil, MaxPayload+1)
	bad := []byte{0, 0, 0, 2, 0, 0}
	for _, in := range [][]byte{huge, bad, {0, 0}, {0, 0, 0, 4, 0}} {
		if err := Serve(fakeConn{bytes.NewReader(in), io.Discard}, func([]byte) {}); err == nil {
			t.Errorf("%x: accepted", in)
		}
	}
}

// TestServeTruncated: a stream that ends inside a frame, in its length or
// in its payload (even before the first payload byte), is
// io.ErrUnexpectedEOF; only an end between frames is clean.
func TestServeTruncated(t *testing.T) {
	frame, err := Append(nil, [][]byte{[]byte("item")})
	if err != nil {
		t.Fatal(err)
	}
	for cut := 1; cut < len(frame); cut++ {
		in := append(slices.Clone(frame), frame[:cut]...)
		var items int
		err := Serve(fakeConn{bytes.NewReader(in), io.Discard}, func([]byte) { items++ })
		if err != io.ErrUnexpectedEOF || items != 1 {
			t.Errorf("a frame and %d bytes of the next: %v after %d items, want io.ErrUnexpectedEOF after 1", cut, err, items)
		}
	}
	if err := Serve(fakeConn{bytes.NewReader(frame), io.Discard}, func([]byte) {}); err != nil {
		t.Errorf("a whole frame: %v", err)
	}
}

// TestServeAllocatesAsBytesArrive: a frame that declares MaxPayload bytes
// and sends few makes Serve allocate about what arrived, not what was
// declared.
func TestServeAllocatesAsBytesArrive(t *testing.T) {
	in := append(binary.BigEndian.AppendUint32(nil, MaxPayload), make([]byte, 100)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := Serve(fakeConn{bytes.NewReader(in), io.Discard}, func([]byte) {})
	runtime.ReadMemStats(&after)
	if err != io.ErrUnexpectedEOF {
		t.Errorf("a frame cut after 100 of %d bytes: %v, want io.ErrUnexpectedEOF", MaxPayload, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("Serve allocated %d bytes for a frame of which 100 bytes arrived", n)
	}
}

// FuzzServe checks that Serve never panics on any stream and ends with a
// documented error or nil.
func FuzzServe(f *testing.F) {
	one, _ := Append(nil, [][]byte{[]byte("item")})
	f.Add(one)
	f.Add(append(binary.BigEndian.AppendUint32(nil, MaxPayload), 1, 2, 3))
	f.Add([]byte{0, 0, 0, 8, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, in []byte) {
		err := Serve(fakeConn{bytes.NewReader(in), io.Discard}, func([]byte) {})
		if err != nil && err != io.ErrUnexpectedEOF && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("undocumented error %v", err)
		}
	})
}
