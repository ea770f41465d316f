package main

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

// readKeyFiles parses each named file with parse (identities or
// recipients) and returns all keys in order; what names the kind of file in
// errors that the file system reports, and a parse error names the file.
func readKeyFiles[T any](names []string, what string, parse func(io.Reader) ([]T, error)) ([]T, error) {
	var keys []T
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		more, err := parse(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		keys = append(keys, more...)
	}
	return keys, nil
}
