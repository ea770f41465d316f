//go:build !purego

package mlkemavx

import (
	"syscall"
	"testing"
)

// TestMemoryBounds places each function's input or output at the end of
// a page followed by one that may not be touched, so a read or write past
// the buffer faults, and checks that the bytes before the buffer are left
// alone: the 40-byte masked loads and stores of decode10 and compress10,
// and the stores of compress4 and message.
func TestMemoryBounds(t *testing.T) {
	requireAVX512(t)
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip(err)
	}
	// end returns the last n bytes of the accessible page, the 64 bytes
	// before them set to 0xa5.
	end := func(n int) []byte {
		for i := range mem[:page] {
			mem[i] = 0xa5
		}
		return mem[page-n : page]
	}
	untouched := func(name string, n int) {
		for i := page - n - 64; i < page-n; i++ {
			if mem[i] != 0xa5 {
				t.Errorf("%s wrote byte %d before its buffer", name, page-n-i)
			}
		}
	}
	var p, e poly
	var m [32]byte
	for i := range p {
		p[i] = int16(i * 13 % q)
	}
	decode10(&p, (*[320]byte)(end(320)))
	decode4(&p, (*[128]byte)(end(128)))
	compress10((*[320]byte)(end(320)), &p, &e)
	untouched("compress10", 320)
	compress4((*[128]byte)(end(128)), &p, &e, &m)
	untouched("compress4", 128)
	message((*[32]byte)(end(32)), &p, &e)
	untouched("message", 32)
	cbd2(&p, (*[prfLen]byte)(end(prfLen)))
}
