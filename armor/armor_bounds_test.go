package armor

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/fanseal/fanseal/internal/errs"
)

// readerAllocs is the most a Reader allocates, by NewReader's doc
// comment, whatever the input: a 4 KiB buffer, the Reader, what it reads
// of the white space after the end line, and its error.
const readerAllocs = 12 << 10

// A piece of a lazy input: b, over and over, n bytes in all.
type piece struct {
	b []byte
	n int64
}

// A lazy input is never in memory: its pieces one after another. read
// counts the bytes handed out.
type lazy struct {
	pieces []piece
	off    int64 // in pieces[0]
	read   int64
}

func (l *lazy) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(l.pieces) > 0 {
		pc := l.pieces[0]
		if l.off == pc.n {
			l.pieces, l.off = l.pieces[1:], 0
			continue
		}
		at := l.off % int64(len(pc.b))
		k := copy(p[n:], pc.b[at:])
		k = int(min(int64(k), pc.n-l.off))
		n += k
		l.off += int64(k)
	}
	l.read += int64(n)
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func once(s string) piece { return piece{[]byte(s), int64(len(s))} }

// allocs returns what f allocates.
func allocs(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// scratch is where drain reads: allocated once, not by what is measured.
var scratch = make([]byte, 4096)

// drain reads r to its end.
func drain(r io.Reader) (int64, error) {
	var n int64
	for {
		k, err := r.Read(scratch)
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// TestReaderBounds: a Reader decodes an armored input of any length in
// the memory its doc comment states, and refuses the hostile ones (a line
// of 1 MiB, 1 MiB of white space before the begin line or after the end
// line) having read at most its buffer past what it allows.
func TestReaderBounds(t *testing.T) {
	lines := int64(1 << 18) // 12 MiB decoded
	if testing.Short() {
		lines = 1 << 15
	}
	line := strings.Repeat("A", columns) + "\n"
	var n int64
	var err error
	in := &lazy{pieces: []piece{once(Header + "\n"), {[]byte(line), lines * int64(len(line))}, once("AAAA\n" + Footer + "\n")}}
	a := allocs(func() { n, err = drain(NewReader(in)) })
	if err != nil || n != lines*bytesLine+3 {
		t.Fatalf("%d lines: %d bytes, %v", lines, n, err)
	}
	if a > readerAllocs {
		t.Errorf("decoding %d bytes allocated %d bytes, ceiling %d", n, a, readerAllocs)
	}

	const buffer = 4096 // the Reader's read-ahead
	big := int64(1 << 20)
	for _, tc := range []struct {
		name    string
		pieces  []piece
		allowed int64 // the bytes of input the Reader may consume first
	}{
		{"a line of 1 MiB", []piece{once(Header + "\n"), {[]byte("A"), big}}, int64(len(Header)) + 1 + columns},
		{"1 MiB of white space before the begin line", []piece{{[]byte(" \n"), big}}, maxWhitespace},
		{"1 MiB of white space after the end line", []piece{once(Header + "\nAAAA\n" + Footer + "\n"), {[]byte(" "), big}}, int64(len(Header)+len(Footer)+7) + maxWhitespace},
	} {
		in := &lazy{pieces: tc.pieces}
		a := allocs(func() { _, err = drain(NewReader(in)) })
		if !errors.Is(err, errs.Malformed) {
			t.Errorf("%s: %v, want malformed", tc.name, err)
		}
		if in.read > tc.allowed+buffer {
			t.Errorf("%s: read %d bytes before refusing, at most %d", tc.name, in.read, tc.allowed+buffer)
		}
		if a > readerAllocs {
			t.Errorf("%s: allocated %d bytes, ceiling %d", tc.name, a, readerAllocs)
		}
	}
}

// TestWriterAllocs: a Writer armors any length in constant memory.
func TestWriterAllocs(t *testing.T) {
	chunk := bytes.Repeat([]byte{7}, 1<<20)
	w := NewWriter(io.Discard)
	w.Write(chunk[:1]) // the begin line
	if n := testing.AllocsPerRun(8, func() {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Write of 1 MiB: %v allocations, want 0", n)
	}
}
