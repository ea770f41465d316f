package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"filippo.io/age/armor"
	fsarmor "github.com/fanseal/fanseal/armor"
)

// openInput returns the named file, or stdin for "" and "-".
func openInput(name string, stdin io.Reader) (io.Reader, func(), error) {
	if name == "" || name == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open input: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// maxTerminalInput is the most bufferTerminalInput reads.
const maxTerminalInput = 16 << 20

// bufferTerminalInput reads an armored input from the terminal r, up to
// and including the line that ends its armor (age's or fanseal's), or to
// the end of input, and returns it. A terminal returns a line a read, so
// nothing after that line is taken from it.
func bufferTerminalInput(r io.Reader) (io.Reader, error) {
	var buf bytes.Buffer
	line := make([]byte, 0, 128)
	var b [1]byte
	for buf.Len()+len(line) < maxTerminalInput {
		n, err := r.Read(b[:])
		if n == 1 {
			line = append(line, b[0])
			if b[0] == '\n' {
				buf.Write(line)
				end := string(bytes.TrimSpace(line))
				line = line[:0]
				if end == armor.Footer || end == fsarmor.Footer {
					return &buf, nil
				}
			}
		}
		if err == io.EOF {
			buf.Write(line)
			return &buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the input from the terminal: %w", err)
		}
	}
	return nil, fmt.Errorf("reading the input from the terminal: more than %d bytes without an armor's last line", maxTerminalInput)
}
