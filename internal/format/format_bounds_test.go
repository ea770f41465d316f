package format

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/fanseal/fanseal/internal/errs"
	"github.com/fanseal/fanseal/internal/race"
)

// The bounds ReadHeader's and ParseHeader's doc comments state.
const (
	// The stanza table of a header of MaxStanzas stanzas, and what
	// ParseHeader allocates beside it.
	tableBytes = 384 << 10
	fixedBytes = 16 << 10
	// What ReadHeader holds at most, and allocates at most, for a header
	// of n bytes: 1.25 n + 72 KiB and 6.25 n + 360 KiB.
	heldFixed  = 72 << 10
	allocFixed = 360 << 10
)

// manyStanzas is a header of MaxStanzas stanzas: MaxRecipients HPKE
// stanzas with distinct identifiers, and stanzas of an unknown type.
func manyStanzas() []byte {
	stanzas := make([]stanza, MaxStanzas)
	for i := range stanzas {
		if i >= MaxRecipients {
			stanzas[i] = stanza{0x09, nil}
			continue
		}
		var id [KeyIDSize]byte
		binary.BigEndian.PutUint64(id[:], uint64(i)*0x9e3779b97f4a7c15)
		stanzas[i] = stanza{StanzaHPKE, suiteBody(KEMX25519, id[:], 32+WrappedSize)}
	}
	return header(false, stanzas...)
}

// TestParseHeaderAllocs: checking a header of MaxStanzas stanzas
// allocates a constant, whatever the number of stanzas, once the stanza
// table is recycled; the table itself is within its 384 KiB.
func TestParseHeaderAllocs(t *testing.T) {
	h := manyStanzas()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.TotalAlloc
	if _, _, err := ParseHeader(h); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m)
	if a := m.TotalAlloc - before; a > tableBytes+fixedBytes {
		t.Errorf("the first ParseHeader of %d stanzas allocated %d bytes, ceiling %d", MaxStanzas, a, tableBytes+fixedBytes)
	}
	if race.Enabled {
		t.Skip("the race detector's sync.Pool drops what is put back")
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, _, err := ParseHeader(h); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3 {
		t.Errorf("ParseHeader of %d stanzas: %v allocations, want at most 3", MaxStanzas, allocs)
	}
}

// A lazyHeader is a header that is never in memory: a preamble for
// count stanzas, then stanzas of type 0x7f with bodies of 65 535 zero
// bytes, as many as asked, then nothing. probe is called once, when the
// reader has consumed probeAt bytes.
type lazyHeader struct {
	pre     []byte
	stanza  int64 // bytes of one stanza
	size    int64
	off     int64
	probeAt int64
	probe   func()
}

func newLazyHeader(count, stanzas int) *lazyHeader {
	p := Preamble{AEAD: AEADAES256GCM, Count: count}
	return &lazyHeader{pre: p.Append(nil), stanza: 3 + 0xffff, size: int64(PreambleSize) + int64(stanzas)*(3+0xffff)}
}

func (l *lazyHeader) Read(p []byte) (int, error) {
	if l.probe != nil && l.off >= l.probeAt {
		probe := l.probe
		l.probe = nil
		probe()
	}
	if l.off >= l.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && l.off < l.size {
		var k int
		if l.off < int64(len(l.pre)) {
			k = copy(p[n:], l.pre[l.off:])
		} else {
			at := (l.off - int64(len(l.pre))) % l.stanza
			switch at {
			case 0:
				p[n], k = 0x7f, 1
			case 1, 2:
				p[n], k = 0xff, 1
			default:
				k = int(min(int64(len(p)-n), l.stanza-at))
				clear(p[n : n+k])
			}
		}
		k = int(min(int64(k), l.size-l.off))
		n += k
		l.off += int64(k)
	}
	return n, nil
}

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestReadHeaderBounds sends MaxStanzas stanzas of 64 KiB, 655 MiB
// declared: ReadHeader refuses the header once it passes MaxHeaderSize,
// having read no more than that and a stanza, held at most 1.25 ×
// MaxHeaderSize + 72 KiB, and allocated at most 6.25 × MaxHeaderSize +
// 360 KiB. A header just under the limit is read, within the same bounds.
func TestReadHeaderBounds(t *testing.T) {
	over := newLazyHeader(MaxStanzas, MaxStanzas)
	var held int64
	before := liveHeap()
	over.probeAt = MaxHeaderSize - 2*over.stanza
	over.probe = func() { held = liveHeap() - before }
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	allocs := m.TotalAlloc
	_, err := ReadHeader(bufio.NewReader(over))
	runtime.ReadMemStats(&m)
	allocs = m.TotalAlloc - allocs
	if !errors.Is(err, errs.Malformed) {
		t.Fatalf("a header of %d bytes: %v", over.size, err)
	}
	if over.off > MaxHeaderSize+over.stanza+4096 {
		t.Fatalf("refusing the header took reading %d bytes, limit %d", over.off, MaxHeaderSize)
	}
	if ceiling := int64(MaxHeaderSize*5/4 + heldFixed); held > ceiling {
		t.Fatalf("%d bytes into the header, ReadHeader held %d bytes, ceiling %d", over.probeAt, held, ceiling)
	}
	if ceiling := uint64(MaxHeaderSize*25/4 + allocFixed); allocs > ceiling {
		t.Fatalf("refusing the header allocated %d bytes, ceiling %d", allocs, ceiling)
	}

	// Just under the limit: the stanzas that fit, read whole.
	n := (MaxHeaderSize - PreambleSize) / (3 + 0xffff)
	under := newLazyHeader(n, n)
	under.size += MACSize
	runtime.ReadMemStats(&m)
	allocs = m.TotalAlloc
	h, err := ReadHeader(bufio.NewReader(under))
	runtime.ReadMemStats(&m)
	allocs = m.TotalAlloc - allocs
	if err != nil {
		t.Fatalf("a header of %d bytes: %v", under.size-MACSize, err)
	}
	if size := int64(len(h.Raw)); cap(h.Raw) > int(size*5/4+heldFixed) || allocs > uint64(size*25/4+allocFixed) {
		t.Fatalf("a header of %d bytes: held in %d bytes, %d allocated; ceilings %d and %d", size, cap(h.Raw), allocs, size*5/4+heldFixed, size*25/4+allocFixed)
	}
}
