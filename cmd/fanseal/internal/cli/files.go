package cli

import (
	"fmt"
	"io"
	"os"
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
