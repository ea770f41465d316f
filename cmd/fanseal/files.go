package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// An output is the destination of a command: stdout, or a file that
// appears under its name only when Commit is called. Until then it is a
// temporary file in the same directory, removed by Abort, so a failed
// command never leaves a partial output behind.
type output struct {
	io.Writer
	tmp  *os.File
	name string
}

func createOutput(name string, stdout io.Writer, mode os.FileMode) (*output, error) {
	if name == "" || name == "-" {
		return &output{Writer: stdout}, nil
	}
	if _, err := os.Lstat(name); err == nil {
		return nil, fmt.Errorf("output file %q exists; remove it first", name)
	}
	return tempOutput(name, mode)
}

// tempOutput starts an output whose Commit renames a new temporary file
// over name, replacing any file there.
func tempOutput(name string, mode os.FileMode) (*output, error) {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("cannot create output: %w", err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &output{Writer: tmp, tmp: tmp, name: name}, nil
}

// Commit makes the output file appear under its name.
func (o *output) Commit() error {
	if o.tmp == nil {
		return nil
	}
	err := errors.Join(o.tmp.Sync(), o.tmp.Close())
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.name)
	}
	if err != nil {
		os.Remove(o.tmp.Name())
		return fmt.Errorf("writing %s: %w", o.name, err)
	}
	return nil
}

// Abort removes a temporary output; it is a no-op after Commit.
func (o *output) Abort() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
}

// writeReplacing writes the file name with write, through a temporary file
// in the same directory, replacing any existing file only once write
// succeeded: a failure leaves the old file, or none, never a partial one.
func writeReplacing(name string, write func(io.Writer) error) error {
	o, err := tempOutput(name, 0o644)
	if err != nil {
		return err
	}
	defer o.Abort()
	if err := write(o); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return o.Commit()
}
