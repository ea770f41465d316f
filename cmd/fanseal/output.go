package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// outputRule is how every flag that names an output file (-o, --json,
// --plot, --cpuprofile, --memprofile) writes it; the help of every command
// with such a flag includes it.
const outputRule = `Output files:
    Every option that names an output file writes it the same way. "-" is
    standard output. A device or a FIFO (/dev/null, /dev/stdout), or a
    symbolic link to one, is written in place, never replaced. A regular
    file, or a symbolic link to one, is replaced only once the whole output
    is complete (for decrypt: once the whole payload has authenticated),
    keeping the file's mode; a new file gets the mode your umask gives.
    Until then nothing appears under the name, and an interrupted or killed
    command leaves nothing behind. A path that cannot be written is refused
    before any work starts.`

// unnamedOff turns unnamed temporary files off, so that the tests can run
// the named fallback through the same code (in-process, or in a binary
// built with -ldflags "-X main.unnamedOff=1"). It is empty otherwise.
var unnamedOff string

// An output is where a command writes one of its outputs: standard output,
// a device or FIFO written in place, or a regular file that appears, or is
// replaced, only when Commit is called.
//
// A regular file's content is first written to an unnamed file in the
// target's directory (Linux's O_TMPFILE), which the kernel discards if
// the process dies, however it dies; Commit gives it a name and renames it
// over the target. Where the file system has no unnamed files, a hidden
// temporary file takes its place, readable only by its owner and removed
// by Abort or by a signal (see removeOnSignal); only SIGKILL or a crash
// can leave that one behind.
type output struct {
	io.Writer
	name   string      // as the user gave it, for messages
	target string      // the regular file Commit creates or replaces; "" if written in place
	perm   os.FileMode // the mode Commit gives target
	owner  *os.File    // the existing target whose owner the new file keeps, if any (closed at once)
	file   *os.File    // the device, FIFO or temporary file, closed by Commit or Abort
	tmp    string      // the named temporary file; "" for an unnamed one
	done   bool
}

// createOutput starts the output name: stdout for "" and "-"; otherwise
// the file is checked and its temporary file created now, before the work
// that produces the output, so that a path that cannot be written is
// refused at once. A new file gets perm less the umask; an existing one
// keeps its mode.
func createOutput(name string, stdout io.Writer, perm os.FileMode) (*output, error) {
	return startOutput(name, stdout, perm, true)
}

// createNewOutput is createOutput for a file that must not replace an
// existing one (an identity: losing a secret key is worse than any error);
// devices and FIFOs are still written in place.
func createNewOutput(name string, stdout io.Writer, perm os.FileMode) (*output, error) {
	return startOutput(name, stdout, perm, false)
}

func startOutput(name string, stdout io.Writer, perm os.FileMode, replace bool) (*output, error) {
	if name == "" || name == "-" {
		return &output{Writer: stdout, name: "standard output"}, nil
	}
	path, fi, err := resolve(name)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", name, err)
	}
	o := &output{name: name}
	switch {
	case fi == nil:
		o.perm = perm &^ umask()
	case fi.Mode().IsRegular():
		if !replace {
			return nil, fmt.Errorf("%s exists; it is never replaced (remove it first, or choose another name)", name)
		}
		o.perm = fi.Mode().Perm()
		// Opened read-only only to learn the owner: a fresh file belongs to
		// whoever runs the command.
		if f, err := os.Open(path); err == nil {
			o.owner = f
		}
	case fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", name, unwrapPath(err))
		}
		o.Writer, o.file = f, f
		return o, nil
	case fi.IsDir():
		return nil, fmt.Errorf("cannot write %s: it is a directory", name)
	default:
		return nil, fmt.Errorf("cannot write %s: not a regular file, device or FIFO (%v)", name, fi.Mode().Type())
	}
	o.target = path
	dir := filepath.Dir(path)
	f, err := openUnnamed(dir)
	if errors.Is(err, errNoUnnamed) {
		f, err = createTemp(dir, "."+filepath.Base(path)+".*.tmp")
		if f != nil {
			o.tmp = f.Name()
		}
	}
	if err != nil {
		o.closeOwner()
		return nil, fmt.Errorf("cannot write %s: %w", name, unwrapPath(err))
	}
	o.Writer, o.file = f, f
	return o, nil
}

// resolve follows symbolic links from name as open(2) would, and returns
// the path they lead to and what is there (nil if nothing is).
func resolve(name string) (string, fs.FileInfo, error) {
	path := name
	for range 40 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil, nil
		}
		if err != nil {
			return "", nil, unwrapPath(err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, fi, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", nil, unwrapPath(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", nil, errors.New("too many levels of symbolic links")
}

// unwrapPath drops the path from a file system error, so that a message
// names the file the user gave, never a temporary one.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Write writes to the output. An error names the output as the user gave
// it, never the temporary file it goes through.
func (o *output) Write(p []byte) (int, error) {
	n, err := o.Writer.Write(p)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
	}
	return n, err
}

// Commit completes the output: a regular file gets its mode (and, where
// the system allows, the replaced file's owner) and appears under its
// name, replacing what was there. Commit is a no-op for standard output,
// and closes a device or FIFO.
func (o *output) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	if o.file == nil {
		return nil
	}
	if o.target == "" {
		if err := o.file.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
		}
		return nil
	}
	defer o.closeOwner()
	err := errors.Join(o.file.Chmod(o.perm), keepOwner(o.file, o.owner), o.file.Sync())
	if err == nil {
		if o.tmp != "" {
			err = errors.Join(o.file.Close(), commitTemp(o.tmp, o.target))
		} else {
			err = errors.Join(linkUnnamed(o.file, o.target), o.file.Close())
		}
	}
	if err != nil {
		o.file.Close()
		if o.tmp != "" {
			removeTemp(o.tmp)
		}
		return fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
	}
	return nil
}

// Abort discards an output that was not committed: nothing appears under
// its name, and a file that was there stays as it was. It is a no-op
// after Commit.
func (o *output) Abort() {
	if o == nil || o.done {
		return
	}
	o.done = true
	o.closeOwner()
	if o.file != nil {
		o.file.Close()
	}
	if o.tmp != "" {
		removeTemp(o.tmp)
	}
}

func (o *output) closeOwner() {
	if o.owner != nil {
		o.owner.Close()
		o.owner = nil
	}
}

// reportTo returns where a command's report goes: to stderr when one of
// outs is standard output, so that the two do not mix; else to stdout.
func reportTo(outs []*output, stdout, stderr io.Writer) io.Writer {
	for _, out := range outs {
		if out.stdout() {
			return stderr
		}
	}
	return stdout
}

// stdout reports whether the output is standard output.
func (o *output) stdout() bool { return o != nil && o.file == nil && !o.done }

// commitWith writes the output with write, then commits it; if write
// fails, the output is aborted.
func (o *output) commitWith(write func(io.Writer) error) error {
	if err := write(o.Writer); err != nil { // not o: its Write names the output too
		o.Abort()
		return fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
	}
	return o.Commit()
}

// writeJSON writes v as indented JSON and commits the output.
func (o *output) writeJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		o.Abort()
		return fmt.Errorf("writing %s: %w", o.name, err)
	}
	return o.commitWith(func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}

// outputs starts the outputs that a command's flags name, before its
// work: flags maps a flag's name to the file it names ("" for none). At
// most one may be standard output, and no two may be the same file.
// Each output is nil where its flag is empty. abort discards every output
// not yet committed.
func startOutputs(stdout io.Writer, flags ...[2]string) (outs []*output, abort func(), err error) {
	abort = func() {
		for _, o := range outs {
			o.Abort()
		}
	}
	seen := map[string]string{}
	for _, f := range flags {
		flag, name := f[0], f[1]
		if name == "" {
			outs = append(outs, nil)
			continue
		}
		key := name
		if name != "-" {
			if path, _, err := resolve(name); err == nil {
				if abs, err := filepath.Abs(path); err == nil {
					key = abs
				}
			}
		}
		if other, ok := seen[key]; ok {
			abort()
			if name == "-" {
				return nil, nil, fmt.Errorf("%w: %s and %s both write to standard output", errUsage, other, flag)
			}
			return nil, nil, fmt.Errorf("%w: %s and %s name the same file %s", errUsage, other, flag, name)
		}
		seen[key] = flag
		o, err := createOutput(name, stdout, 0o666)
		if err != nil {
			abort()
			return nil, nil, fmt.Errorf("%s: %w", flag, err)
		}
		outs = append(outs, o)
	}
	return outs, abort, nil
}
