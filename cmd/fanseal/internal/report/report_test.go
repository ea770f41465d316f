package report

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

func TestThisMachine(t *testing.T) {
	when := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("x", 3600))
	m := ThisMachine(when)
	if m.CPU == "" || m.Cores != runtime.NumCPU() || m.GOMAXPROCS != runtime.GOMAXPROCS(0) ||
		m.Go != runtime.Version() || m.Arch != runtime.GOARCH || !m.Date.Equal(when) || m.Date.Location() != time.UTC {
		t.Fatalf("%+v", m)
	}
}

func TestTime(t *testing.T) {
	for ns, want := range map[float64]string{812: "812 ns", 31_400: "31.4 µs", 1_270_000: "1.27 ms", 0: "0 ns", 18_779_120_000: "18.8 s", 2.5e9: "2.5 s"} {
		if got := Time(ns); got != want {
			t.Errorf("Time(%v) = %q, want %q", ns, got, want)
		}
	}
}

// TestBarQuietInPipes: a bar on anything but a terminal draws nothing,
// and a nil bar is usable.
func TestBarQuietInPipes(t *testing.T) {
	var buf bytes.Buffer
	b := NewBar(&buf, 3)
	b.Step()
	b.To(3)
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("bar wrote %q to a buffer", buf.String())
	}
	var none *Bar
	none.Step()
	none.To(2)
	none.Done()
	if IsTerminal(&buf) {
		t.Fatal("a buffer is a terminal")
	}
}

// TestBarDraws: on a terminal the bar counts to its total and clears its
// line when done.
func TestBarDraws(t *testing.T) {
	var buf bytes.Buffer
	b := &Bar{w: &buf, on: true, total: 4}
	b.Step()
	b.To(4)
	b.To(2) // never back
	b.Done()
	want := "\r[#######.......................] 1/4\r[##############################] 4/4\r\033[K"
	if buf.String() != want {
		t.Fatalf("drew %q, want %q", buf.String(), want)
	}
}
