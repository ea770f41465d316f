package frame

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/fanseal/fanseal/internal/race"
)

// The bounds of Serve's doc comment, for a largest payload of n bytes: it
// holds a buffer of at most n + 8 KiB and a 4 KiB read buffer, and
// allocates at most 2 n + 8 KiB for its largest frame (its buffer
// doubles), nothing for a frame that fits the buffer.
func serveHeld(n int) int64       { return int64(n+8<<10+4<<10) + harness }
func serveAllocated(n int) uint64 { return uint64(2*n+8<<10+4<<10) + harness }

// harness allows for what the test itself holds and allocates around
// Serve: its reader and connection, and what the race detector adds.
const harness = 16 << 10

// A stream of frames that is never in memory: each frame is a header
// and an item of zero bytes, generated as they are read.
type lazyFrames struct {
	sizes []int // the item sizes, one frame each
	buf   [8]byte
	hdr   []byte // what is left to send of buf
	left  int    // zero bytes left of the current item
}

func (l *lazyFrames) Read(p []byte) (int, error) {
	for len(l.hdr) == 0 && l.left == 0 {
		if len(l.sizes) == 0 {
			return 0, io.EOF
		}
		n := l.sizes[0]
		l.sizes = l.sizes[1:]
		if n < 0 { // a bare header that declares -n bytes
			l.hdr = binary.BigEndian.AppendUint32(l.buf[:0], uint32(-n))
			continue
		}
		l.hdr = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(l.buf[:0], uint32(4+n)), uint32(n))
		l.left = n
	}
	if len(l.hdr) > 0 {
		k := copy(p, l.hdr)
		l.hdr = l.hdr[k:]
		return k, nil
	}
	k := min(len(p), l.left)
	clear(p[:k])
	l.left -= k
	return k, nil
}

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestServeBounds sends a frame of MaxPayload bytes, a burst of smaller
// frames, and a frame that declares one byte more than MaxPayload: Serve
// holds and allocates what its doc comment states for the largest, nothing
// more for the burst, and refuses the last before allocating for it.
func TestServeBounds(t *testing.T) {
	largest := MaxPayload - 4 // a payload of MaxPayload bytes
	sizes := []int{largest}
	burst := 256
	if testing.Short() {
		burst = 64
	}
	for range burst {
		sizes = append(sizes, rand.IntN(largest))
	}
	sizes = append(sizes, -(MaxPayload + 1))
	var held int64
	before := liveHeap()
	items := 0
	in := &lazyFrames{sizes: sizes}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := m.TotalAlloc
	err := Serve(fakeConn{in, io.Discard}, func(b []byte) {
		if items == 0 {
			held = liveHeap() - before
		}
		items++
	})
	runtime.ReadMemStats(&m)
	allocated := m.TotalAlloc - start
	if !errors.Is(err, ErrTooLarge) || items != 1+burst {
		t.Fatalf("%d items, then %v; want %d, then ErrTooLarge", items, err, 1+burst)
	}
	if held > serveHeld(largest+4) {
		t.Errorf("a frame of %d bytes: Serve held %d bytes, ceiling %d", largest+4, held, serveHeld(largest+4))
	}
	// The probe's collections allocate nothing that counts here.
	if allocated > serveAllocated(largest+4) {
		t.Errorf("%d frames, the largest of %d bytes: Serve allocated %d bytes, ceiling %d", 2+burst, largest+4, allocated, serveAllocated(largest+4))
	}
}

// TestDecodeAllocs: Decode allocates nothing, however many items.
func TestDecodeAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are the race detector's")
	}
	items := make([][]byte, 10000)
	for i := range items {
		items[i] = bytes.Repeat([]byte{byte(i)}, i%64)
	}
	frame, err := Append(nil, items)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	count := func([]byte) { n++ }
	if a := testing.AllocsPerRun(10, func() { Decode(frame[4:], count) }); a != 0 {
		t.Errorf("Decode of %d items: %v allocations", len(items), a)
	}
}

// TestClientBuffer: a Client reuses its frame buffer: a burst of frames
// no larger than the first allocates at most the 4-byte acknowledgement of
// each (16 bytes, in its size class), not the frame.
func TestClientBuffer(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are the race detector's")
	}
	const sends = 16
	item := make([]byte, 1<<20)
	acks := bytes.Repeat(binary.BigEndian.AppendUint32(nil, 1), 1+sends)
	c := NewClient(fakeConn{bytes.NewReader(acks), io.Discard})
	if err := c.Send(context.Background(), [][]byte{item}); err != nil {
		t.Fatal(err)
	}
	half := [][]byte{item[:len(item)/2]}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := m.TotalAlloc
	for range sends {
		if err := c.Send(context.Background(), half); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m)
	if a := m.TotalAlloc - start; a > sends*16 {
		t.Errorf("%d sends of a frame that fits the buffer allocated %d bytes", sends, a)
	}
}
