package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// outputRule is how every flag that names an output file (-o, --json,
// --plot, --cpuprofile, --memprofile) writes it; the help of every command
// with such a flag includes it.
const outputRule = `Output files:
    fanseal replaces only a regular file that the path names directly: the
    output goes to a hidden temporary file beside it, which takes the name
    only once the whole output is complete (for decrypt: once the whole
    payload has authenticated), keeping the old file's mode; a new file gets
    the mode your umask gives. Until then nothing appears under the name,
    and an interrupted or killed command leaves nothing behind. A new key
    file never replaces a file, not even one created while keygen ran.
    Everything else is written in place, so the kernel's own protections
    apply: "-", /dev/stdout, /dev/stderr and /dev/fd/N write to that
    descriptor (in append mode if the shell opened it so); a device, a FIFO
    or a symbolic link is opened with open(2), and a regular file reached
    through a link keeps its inode, mode and owner and gets the output only
    once it is complete. A link in a world-writable sticky directory such as
    /tmp is followed only if you or the directory's owner own it. A path
    that cannot be written, an output that is the same file as an input,
    identity or recipients file, and two options that name one file are
    refused before any work starts.`

// unnamedOff turns unnamed temporary files off, so that the tests can run
// the named fallback through the same code (in-process, or in a binary
// built with -ldflags "-X main.unnamedOff=1"). It is empty otherwise.
var unnamedOff string

// An output is where a command writes one of its outputs (outputRule):
//   - standard output, or another descriptor of the process, written in
//     place;
//   - a device or FIFO, opened with open(2) and written in place;
//   - a regular file that the path names directly: the content goes to a
//     staging file in the same directory and Commit gives it the name,
//     replacing what was there (or, for keygen, refusing to);
//   - a regular file reached through a symbolic link, opened with open(2):
//     the content goes to a staging file and Commit copies it into the
//     file, which keeps its inode, mode and owner.
//
// A staging file is unnamed (Linux's O_TMPFILE), which the kernel discards
// if the process dies, however it dies. Where the file system has no
// unnamed files, a hidden temporary file takes its place, readable only by
// its owner and removed by Abort or by a signal (see removeOnSignal); only
// SIGKILL or a crash can leave that one behind.
type output struct {
	io.Writer
	name    string      // as the user gave it, for messages
	target  string      // the directly named regular file Commit creates or replaces
	replace bool        // whether Commit may replace target
	perm    os.FileMode // the mode Commit gives target
	owner   *os.File    // the existing target whose owner the new file keeps, if any
	through *os.File    // a regular file reached through a link, filled by Commit
	link    string      // a dangling link, whose target Commit creates through it
	file    *os.File    // what Writer writes to: a device, FIFO, descriptor or staging file
	tmp     string      // the named staging file; "" for an unnamed one
	done    bool
}

// createOutput starts the output name: stdout for "" and "-"; otherwise
// the path is checked and its staging file created now, before the work
// that produces the output, so that a path that cannot be written is
// refused at once. A new file gets perm less the umask; a replaced one
// keeps its mode.
func createOutput(name string, stdout io.Writer, perm os.FileMode) (*output, error) {
	return startOutput(name, stdout, perm, true)
}

// createNewOutput is createOutput for a file that must never replace an
// existing one (an identity: losing a secret key is worse than any error):
// the commit itself refuses a file that appeared while the command ran.
// Descriptors, devices and FIFOs are still written in place.
func createNewOutput(name string, stdout io.Writer, perm os.FileMode) (*output, error) {
	return startOutput(name, stdout, perm, false)
}

func startOutput(name string, stdout io.Writer, perm os.FileMode, replace bool) (*output, error) {
	if name == "" || name == "-" {
		return &output{Writer: stdout, name: "standard output"}, nil
	}
	o := &output{name: name, replace: replace}
	if fd, ok := descriptorName(name); ok {
		if fd == 1 {
			o.Writer = stdout // exactly as "-"
			return o, nil
		}
		f, err := dupDescriptor(fd, name)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", name, unwrapPath(err))
		}
		o.Writer, o.file = f, f
		return o, nil
	}
	fi, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		o.perm = perm &^ umask()
	case err != nil:
		return nil, fmt.Errorf("cannot write %s: %w", name, unwrapPath(err))
	case fi.Mode().IsRegular():
		if !replace {
			return nil, errExists(name)
		}
		o.perm = fi.Mode().Perm()
		// Opened read-only only to learn the owner: a fresh file belongs to
		// whoever runs the command.
		if f, err := os.Open(name); err == nil {
			o.owner = f
		}
	case fi.IsDir():
		return nil, fmt.Errorf("cannot write %s: it is a directory", name)
	default: // a symbolic link, device, FIFO or socket: open(2) decides
		if err := o.openInPlace(fi); err != nil {
			return nil, err
		}
		if o.through == nil && o.link == "" {
			return o, nil
		}
		// The file gets the output only once it is complete: until then
		// it is staged where temporary files go.
		if err := o.stage(os.TempDir()); err != nil {
			return nil, err
		}
		return o, nil
	}
	o.target = name
	if err := o.stage(filepath.Dir(name)); err != nil {
		return nil, err
	}
	return o, nil
}

// openInPlace opens o.name, which is not a regular file (fi says what it
// is), with open(2): a device or FIFO becomes the writer; a regular file
// reached through a link becomes o.through; a dangling link becomes o.link.
func (o *output) openInPlace(fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		if err := followAllowed(o.name, fi); err != nil {
			return fmt.Errorf("cannot write %s: %w", o.name, err)
		}
	}
	f, err := os.OpenFile(o.name, os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrNotExist) && fi.Mode()&fs.ModeSymlink != 0 {
		if !o.replace {
			return fmt.Errorf("cannot write %s: a symbolic link to nothing; a key file is never created through a link", o.name)
		}
		o.link = o.name
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", o.name, unwrapPath(err))
	}
	st, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return fmt.Errorf("cannot write %s: %w", o.name, unwrapPath(err))
	case st.Mode().IsRegular() && !o.replace:
		f.Close()
		return errExists(o.name)
	case st.Mode().IsRegular():
		o.through = f
	default:
		o.Writer, o.file = f, f
	}
	return nil
}

// stage creates the staging file in dir and makes it the writer.
func (o *output) stage(dir string) error {
	f, err := openUnnamed(dir)
	if errors.Is(err, errNoUnnamed) {
		f, err = createTemp(dir, tempPattern)
		if f != nil {
			o.tmp = f.Name()
		}
	}
	if err != nil {
		o.release()
		return fmt.Errorf("cannot write %s: %w", o.name, unwrapPath(err))
	}
	o.Writer, o.file = f, f
	return nil
}

// tempPattern names a staging file that has a name. Its length does not
// depend on the output's name, so a staging file fits wherever a name
// that fits in the directory does.
const tempPattern = ".fanseal-*.tmp"

// errExists is the error of an output that must never replace a file.
func errExists(name string) error {
	return fmt.Errorf("%s exists; it is never replaced (remove it first, or choose another name)", name)
}

// descriptorName reports whether name is one of the names of a descriptor
// of this process: /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N.
func descriptorName(name string) (int, bool) {
	switch name = filepath.Clean(name); name {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(name, dir); ok {
			if fd, err := strconv.Atoi(n); err == nil && fd >= 0 && strconv.Itoa(fd) == n {
				return fd, true
			}
		}
	}
	return 0, false
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

// Commit completes the output. A directly named regular file gets its mode
// (and, where the system allows, the replaced file's owner) and appears
// under its name, replacing what was there, or, for createNewOutput,
// failing if anything is there now. A regular file reached through a link
// gets the whole output in place. Commit is a no-op for standard output,
// and closes a descriptor, device or FIFO.
func (o *output) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	if o.file == nil {
		return nil
	}
	var err error
	switch {
	case o.target != "":
		err = o.commitTarget()
	case o.through != nil || o.link != "":
		err = o.commitThrough()
	default:
		err = o.file.Close()
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) && !o.replace {
			return errExists(o.name)
		}
		return fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
	}
	return nil
}

// commitTarget gives the staging file the directly named target's name.
func (o *output) commitTarget() error {
	defer o.release()
	err := errors.Join(o.file.Chmod(o.perm), keepOwner(o.file, o.owner), o.file.Sync())
	if err == nil {
		if o.tmp != "" {
			err = errors.Join(o.file.Close(), commitTemp(o.tmp, o.target, o.replace))
		} else {
			err = errors.Join(linkUnnamed(o.file, o.target, o.replace), o.file.Close())
		}
	}
	if err != nil {
		o.file.Close()
		if o.tmp != "" {
			removeTemp(o.tmp)
		}
	}
	return err
}

// commitThrough copies the staging file into the regular file that a link
// leads to (opening it now, through the link, if it did not exist), from
// its start, and cuts it there. It holds the temporaries' lock, so that a
// signal that arrives meanwhile ends the process only once the file is
// whole.
func (o *output) commitThrough() (err error) {
	temporaries.Lock()
	defer temporaries.Unlock()
	defer func() {
		o.file.Close()
		if o.tmp != "" {
			os.Remove(o.tmp)
			delete(temporaries.names, o.tmp)
		}
		o.release()
	}()
	if o.through == nil {
		f, err := os.OpenFile(o.link, os.O_WRONLY|os.O_CREATE, o.perm)
		if err != nil {
			return err
		}
		o.through = f
	}
	if _, err := o.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(o.through, o.file)
	if err != nil {
		return err
	}
	return errors.Join(o.through.Truncate(n), o.through.Sync(), o.through.Close())
}

// Abort discards an output that was not committed: nothing appears under
// its name, and a file that was there stays as it was. It is a no-op
// after Commit.
func (o *output) Abort() {
	if o == nil || o.done {
		return
	}
	o.done = true
	o.release()
	if o.file != nil {
		o.file.Close()
	}
	if o.tmp != "" {
		removeTemp(o.tmp)
	}
}

// release closes the files an output holds beside the one it writes.
func (o *output) release() {
	for _, f := range []**os.File{&o.owner, &o.through} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
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

// startOutputs starts the outputs that a command's flags name, before its
// work: flags maps a flag's name to the file it names ("" for none). At
// most one may be standard output, and no two may be the same file
// (sameFile). Each output is nil where its flag is empty. abort discards
// every output not yet committed.
func startOutputs(stdout io.Writer, flags ...[2]string) (outs []*output, abort func(), err error) {
	abort = func() {
		for _, o := range outs {
			o.Abort()
		}
	}
	var named [][2]string
	for _, f := range flags {
		flag, name := f[0], f[1]
		if name == "" {
			outs = append(outs, nil)
			continue
		}
		for _, prev := range named {
			if !sameFile(prev[1], name) {
				continue
			}
			abort()
			if isStdout(name) {
				return nil, nil, fmt.Errorf("%w: %s and %s both write to standard output", errUsage, prev[0], flag)
			}
			return nil, nil, fmt.Errorf("%w: %s and %s name the same file %s", errUsage, prev[0], flag, name)
		}
		named = append(named, f)
		o, err := createOutput(name, stdout, 0o666)
		if err != nil {
			abort()
			return nil, nil, fmt.Errorf("%s: %w", flag, err)
		}
		outs = append(outs, o)
	}
	return outs, abort, nil
}
