package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// An output is the destination of a command: stdout, or a file that
// appears under its name only when Commit is called. Until then it is a
// temporary file in the same directory, created readable by its owner
// only and removed by Abort or by a signal (see removeOnSignal), so a
// failed or interrupted command never leaves a partial output behind, nor
// one that others could read while it was being written.
type output struct {
	io.Writer
	tmp  *os.File
	name string
	perm os.FileMode
}

// createOutput starts the output name, or stdout for "" and "-". The file
// gets perm as a new file does, less the process's umask: 0o666 for
// payloads (as cp and age create files), 0o600 for identities.
func createOutput(name string, stdout io.Writer, perm os.FileMode) (*output, error) {
	if name == "" || name == "-" {
		return &output{Writer: stdout}, nil
	}
	if _, err := os.Lstat(name); err == nil {
		return nil, fmt.Errorf("output file %q exists; remove it first", name)
	}
	return tempOutput(name, perm)
}

// tempOutput starts an output whose Commit renames a new temporary file
// over name, replacing any file there. os.CreateTemp creates the file with
// mode 0o600 (less the umask); it keeps that mode until Commit.
func tempOutput(name string, perm os.FileMode) (*output, error) {
	tmp, err := createTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("cannot create %s: %w", name, pe.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot create %s: %w", name, err)
	}
	return &output{Writer: tmp, tmp: tmp, name: name, perm: perm}, nil
}

// Write writes to the output. An error names the output file, not the
// temporary file it goes through.
func (o *output) Write(p []byte) (int, error) {
	n, err := o.Writer.Write(p)
	return n, o.named(err)
}

// Commit gives the output file its final mode and makes it appear under
// its name.
func (o *output) Commit() error {
	if o.tmp == nil {
		return nil
	}
	err := errors.Join(o.tmp.Chmod(o.perm&^umask()), o.tmp.Sync(), o.tmp.Close())
	if err == nil {
		err = commitTemp(o.tmp.Name(), o.name)
	}
	if err != nil {
		removeTemp(o.tmp.Name())
		return fmt.Errorf("writing %s: %w", o.name, o.named(err))
	}
	return nil
}

// named returns err with the temporary file's name replaced by the output
// file's: the temporary file is an implementation detail, gone by the time
// the user reads the message.
func (o *output) named(err error) error {
	if err == nil || o.tmp == nil || !strings.Contains(err.Error(), o.tmp.Name()) {
		return err
	}
	return &renamedError{msg: strings.ReplaceAll(err.Error(), o.tmp.Name(), o.name), err: err}
}

// A renamedError is an error whose message names the output file.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// Abort removes a temporary output; it is a no-op after Commit.
func (o *output) Abort() {
	if o.tmp != nil {
		o.tmp.Close()
		removeTemp(o.tmp.Name())
	}
}

// writeReplacing writes the file name with write, through a temporary file
// in the same directory, replacing any existing file only once write
// succeeded: a failure leaves the old file, or none, never a partial one.
func writeReplacing(name string, write func(io.Writer) error) error {
	o, err := tempOutput(name, 0o666)
	if err != nil {
		return err
	}
	defer o.Abort()
	if err := write(o); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return o.Commit()
}

// writeJSON writes v to the file name as indented JSON, as writeReplacing
// writes files.
func writeJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return writeReplacing(name, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}
