package cli

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
)

// OutputRule is how every flag that names an output file (-o, --json,
// --plot, --cpuprofile, --memprofile) writes it: fanseal help output
// prints it, the help of every command with such a flag points to it
// (outputPointer), and the measuring programs' help includes it.
const OutputRule = `Output files:
    fanseal replaces only a regular file that the path names directly: the
    output goes to a hidden temporary file beside it, which takes the name
    only once the whole output is complete (for decrypt: once the whole
    payload has authenticated), keeping the old file's mode; a new file gets
    the mode your umask gives. Until then nothing appears under the name,
    and an interrupted command leaves nothing behind (a killed one neither,
    where the file system has unnamed temporary files, as Linux's do). A new
    key file never replaces a file, not even one created while keygen ran.
    Everything else is written in place, as open(2) would and with the
    kernel's protections whatever the system's settings: "-", /dev/stdout,
    /dev/stderr and /dev/fd/N (and every other name of a descriptor in
    /proc) write to that descriptor (in append mode if the shell opened it
    so); a device or FIFO is opened and written; a regular file reached
    through a symbolic link, or mounted over another, keeps its inode, mode
    and owner and gets the output only once it is complete, its space
    reserved first so that a full disk leaves it as it was. In a
    world-writable sticky directory such as /tmp, a link is followed, a
    FIFO written and a file replaced only if you or the directory's owner
    own it. A path that cannot be written, an output that is the same file
    as an input, identity or recipients file, and two options that name one
    file are refused before any work starts.`

// outputPointer is what a command's help says of its output files.
const outputPointer = `Output files:
    -o replaces only a regular file it names directly, and only once the
    whole output is complete (for decrypt, once it has all authenticated);
    anything else (-, /dev/stdout, a device, FIFO or link) is written in
    place. fanseal help output says how, in full.`

// unnamedOff turns unnamed temporary files off, so that the tests can run
// the named fallback through the same code (in-process, or in a binary
// built with -ldflags "-X github.com/fanseal/fanseal/cmd/fanseal/internal/cli.unnamedOff=1"). It is empty otherwise.
var unnamedOff string

// An Output is where a command writes one of its outputs (outputRule):
//   - standard output, or another descriptor of the process, written in
//     place;
//   - a device or FIFO, opened and written in place;
//   - a regular file that the path names directly: the content goes to a
//     staging file in the same directory and Commit gives it the name,
//     replacing what was there (or, for keygen, refusing to);
//   - a regular file reached through a symbolic link: the content goes to
//     a staging file beside it and Commit copies it into the file, which
//     keeps its inode, mode and owner; a link to nothing gets the file
//     created, complete, by Commit.
//
// The path is walked once, at the start (walk): every later step is
// relative to the directory it found, so that renaming or linking a
// directory meanwhile changes nothing. A staging file is unnamed (Linux's
// O_TMPFILE), which the kernel discards if the process dies, however it
// dies. Where the file system has no unnamed files, a hidden temporary
// file takes its place, readable only by its owner and removed by Abort or
// by a signal (see removeOnSignal); only SIGKILL or a crash can leave that
// one behind.
type Output struct {
	io.Writer
	name    string      // as the user gave it, for messages
	replace bool        // whether Commit may replace an existing file
	perm    os.FileMode // the mode of the file Commit creates or replaces
	dir     *dir        // the directory of the file, once walked; nil otherwise
	base    string      // the file's name in dir, created or replaced by Commit ("" if written in place)
	owner   *fileInfo   // the replaced file, whose owner the new one keeps
	through *os.File    // a regular file reached through a link, filled by Commit
	file    *os.File    // what Writer writes to: a device, FIFO, descriptor or staging file
	created bool        // base is created through a link: never replaces a file
	tmp     string      // the named staging file in dir; "" for an unnamed one
	err     error       // the first write that failed: Commit then fails
	done    bool
	// input, if set, is the named regular file the output is made from:
	// a new output (one that replaces no file) whose input still exists
	// when it is committed could be made again after a crash, so it is
	// not flushed to disk first (see commitTarget).
	input string
}

// outputSyncs counts the staging files flushed before they took their
// name, so that the tests see which outputs pay for an fsync.
var outputSyncs atomic.Int64

// RemakeableFrom records that the output is made from the file input
// (the command's INPUT: "" or "-" is standard input, which cannot be read
// again): a new output file is then committed without an fsync, where a
// crash right after the command costs nothing that cannot be made again.
// A replaced file, a file reached through a link, and a secret key file
// are flushed whatever the input.
func (o *Output) RemakeableFrom(input string) {
	if input != "" && input != "-" {
		o.input = input
	}
}

// remakeable reports whether the output's input is still a regular file.
func (o *Output) remakeable() bool {
	if o.input == "" {
		return false
	}
	fi, err := os.Stat(o.input)
	return err == nil && fi.Mode().IsRegular()
}

// createOutput starts the output name: stdout for "" and "-"; otherwise
// the path is checked and its staging file created now, before the work
// that produces the output, so that a path that cannot be written is
// refused at once. A new file gets perm less the umask; a replaced one
// keeps its mode.
func createOutput(name string, stdout io.Writer, perm os.FileMode) (*Output, error) {
	return startOutput(name, stdout, perm, true)
}

// createNewOutput is createOutput for a file that must never replace an
// existing one (an identity: losing a secret key is worse than any error):
// the commit itself refuses a file that appeared while the command ran.
// Descriptors, devices and FIFOs are still written in place.
func createNewOutput(name string, stdout io.Writer, perm os.FileMode) (*Output, error) {
	return startOutput(name, stdout, perm, false)
}

func startOutput(name string, stdout io.Writer, perm os.FileMode, replace bool) (*Output, error) {
	if name == "" || name == "-" {
		return &Output{Writer: stdout, name: "standard output"}, nil
	}
	o := &Output{name: name, replace: replace, perm: perm &^ umask()}
	if err := o.start(stdout); err != nil {
		o.Abort()
		return nil, fmt.Errorf("cannot write %s: %w", name, unwrapPath(err))
	}
	if o.named() {
		startSignalHandler() // beside the work, in place by the first Write
	}
	return o, nil
}

// staged reports whether the output is held back until Commit: a file
// Commit creates or replaces, or fills through a link; not one written in
// place, whose bytes are where they go as they are written.
func (o *Output) staged() bool { return o.base != "" || o.through != nil }

// named reports whether a staged output has, or will have before it is
// complete, a name that a signal must not leave behind or cut short: a
// named staging file, the hidden name an unnamed one takes for the
// instant before it replaces a file, or the copy into a link's file. Only
// those need removeOnSignal. An unnamed staging file that becomes a new
// file needs nothing: it vanishes with the process, however it ends, and
// is linked in under its name in one step, complete (commitTarget), so a
// signal ends the process by its default action, as it ends age, and the
// handler's start (a goroutine and a locked thread) is not paid.
func (o *Output) named() bool { return o.tmp != "" || o.through != nil || o.owner != nil }

// start walks the output's path and opens what the output writes.
func (o *Output) start(stdout io.Writer) error {
	fd, ok := descriptorName(o.name)
	w := &walked{fd: fd}
	if !ok {
		var err error
		if w, err = walk(o.name); err != nil {
			return err
		}
	}
	if w.fd >= 0 {
		return o.useDescriptor(w.fd, stdout)
	}
	o.dir = w.dir
	switch fi := w.fi; {
	case fi == nil && w.viaLink && !o.replace:
		return errors.New("a symbolic link to nothing; a key file is never created through a link")
	case fi == nil:
		o.base, o.created = w.base, w.viaLink // created by Commit
	case fi.mode.IsDir():
		return errors.New("it is a directory")
	case fi.mode.IsRegular() && !o.replace:
		return errExists(o.name)
	case fi.mode.IsRegular():
		if guarded, err := o.dir.guarded(fi, false); err != nil || guarded {
			return cmp.Or(err, errProtectedFile)
		}
		if err := o.dir.writable(w.base); err != nil {
			return err
		}
		if !w.viaLink && !o.dir.mountPoint(w.base) {
			o.base, o.perm, o.owner = w.base, fi.mode.Perm(), fi
			break
		}
		// Through a link, or a file mounted over another (containers bind
		// /etc/hosts so), which rename cannot replace: filled in place.
		f, err := o.dir.openSame(w.base, fi)
		if err != nil {
			return err
		}
		if fd := inheritedDescriptor(f); fd >= 0 {
			f.Close() // the file behind standard output or error: append as they do
			return o.useDescriptor(fd, stdout)
		}
		o.through = f
	default: // a device, FIFO or socket
		// The kernel's protected_fifos rule applies only to opens that may
		// create; this one may not, so the rule is applied here: another
		// user's FIFO would hand them the output.
		if fi.mode&fs.ModeNamedPipe != 0 {
			if guarded, err := o.dir.guarded(fi, false); err != nil || guarded {
				return cmp.Or(err, errProtectedFIFO)
			}
		}
		f, err := o.dir.openSame(w.base, fi)
		if err != nil {
			return err
		}
		o.Writer, o.file = f, f
		return nil
	}
	return o.stage()
}

// useDescriptor makes the process's descriptor fd the writer: standard
// output is written exactly as "-" is.
func (o *Output) useDescriptor(fd int, stdout io.Writer) error {
	if fd == 1 {
		o.Writer = stdout
		return nil
	}
	f, err := dupDescriptor(fd, o.name)
	if err != nil {
		return err
	}
	o.Writer, o.file = f, f
	return nil
}

// inheritedDescriptor returns 1 or 2 when f is the file behind the
// process's standard output or error, -1 otherwise.
func inheritedDescriptor(f *os.File) int {
	st, err := fdInfo(int(f.Fd()))
	if err != nil {
		return -1
	}
	for _, fd := range []int{1, 2} {
		if std, err := fdInfo(fd); err == nil && std.same(st) {
			return fd
		}
	}
	return -1
}

// stage creates the staging file in the output's directory and makes it
// the writer.
func (o *Output) stage() error {
	f, err := o.dir.openUnnamed()
	if errors.Is(err, errNoUnnamed) {
		f, o.tmp, err = createTemp(o.dir)
	}
	if err != nil {
		return err
	}
	o.Writer, o.file = f, f
	return nil
}

// tempPattern names a staging file that has a name. Its length does not
// depend on the output's name, so a staging file fits wherever a name
// that fits in the directory does.
const tempPattern = ".fanseal-*.tmp"

// tempName returns a fresh hidden name: .fanseal-<16 hex digits>.tmp.
func tempName() string {
	var r [8]byte
	rand.Read(r[:])
	return strings.Replace(tempPattern, "*", hex.EncodeToString(r[:]), 1)
}

// errExists is the error of an output that must never replace a file.
func errExists(name string) error {
	return fmt.Errorf("%s exists; it is never replaced (remove it first, or choose another name)", name)
}

// descriptorName reports whether name is one of the names of a descriptor
// of this process: /dev/stdout, /dev/stderr, /dev/fd/N, or N in the fd
// directory of /proc/self, /proc/thread-self or /proc/PID (this process's).
func descriptorName(name string) (int, bool) {
	switch name = path.Clean(name); name {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	self := "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", self} {
		if n, ok := strings.CutPrefix(name, dir); ok {
			if fd, ok := decimal(n); ok {
				return fd, true
			}
		}
	}
	return 0, false
}

// decimal returns the number that s spells in decimal, without sign or
// leading zeros.
func decimal(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == s
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
// it, never the temporary file it goes through, and is remembered: Commit
// then fails and discards the output, so that a writer that drops errors
// (runtime/pprof's) cannot commit a short file.
func (o *Output) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if o.named() {
		waitSignalHandler() // an output with something pending is cleaned up, and its interruption said
	}
	n, err := o.Writer.Write(p)
	if err != nil {
		o.err = fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
		return n, o.err
	}
	return n, nil
}

// Commit completes the output. A directly named regular file gets its mode
// (and, where the system allows, the replaced file's owner) and appears
// under its name, replacing what was there, or, for createNewOutput,
// failing if anything is there now. A regular file reached through a link
// gets the whole output in place. Commit is a no-op for standard output,
// and closes a descriptor, device or FIFO. If a write failed, Commit
// discards the output and returns that error.
func (o *Output) Commit() error {
	if o.done {
		return nil
	}
	if o.err != nil {
		o.Abort()
		return o.err
	}
	o.done = true
	defer o.release()
	var err error
	switch {
	case o.file == nil:
		return nil
	case o.through != nil:
		err = o.commitThrough()
	case o.base == "":
		err = o.file.Close()
	default:
		err = o.commitTarget()
	}
	if err != nil {
		if errors.Is(err, fs.ErrExist) && !o.replace {
			return errExists(o.name)
		}
		return fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
	}
	return nil
}

// commitTarget gives the staging file its name in the output's directory:
// it replaces a file there, or, for a key file and for a file created
// through a link, is linked in only if nothing has the name; a new file
// is linked in directly, without the hidden name a replacement takes. The staging
// file keeps mode 0o600 until it is whole on disk: it is flushed first,
// unless it replaces nothing, is no key file, and its input is still
// there to make it again (RemakeableFrom).
func (o *Output) commitTarget() error {
	var err error
	if o.owner != nil || !o.replace || o.created || !o.remakeable() {
		outputSyncs.Add(1)
		err = o.file.Sync()
	}
	if err == nil {
		err = errors.Join(o.file.Chmod(o.perm), keepOwner(o.file, o.owner))
	}
	replace := o.replace && !o.created
	if err == nil {
		switch {
		case o.tmp != "":
			err = errors.Join(o.file.Close(), commitTemp(o.dir, o.tmp, o.base, replace))
		case !replace:
			err = errors.Join(o.dir.linkUnnamed(o.file, o.base), o.file.Close())
		case o.owner == nil && o.dir.linkUnnamed(o.file, o.base) == nil:
			// Nothing had the name when the output started, nor has it
			// now: the file is linked in, complete, in one step. (Where
			// something took the name meanwhile, the output replaces it,
			// as below.)
			err = o.file.Close()
		default:
			// linkat cannot replace a file: link under a hidden name, then
			// rename (the hidden name is recorded for removeOnSignal for the
			// instant it exists; it holds the complete output).
			hidden := tempName()
			err = withTemporary(o.dir, hidden, func() error { return o.dir.linkUnnamed(o.file, hidden) })
			if err == nil {
				err = commitTemp(o.dir, hidden, o.base, true)
			}
			err = errors.Join(err, o.file.Close())
		}
	}
	if err != nil {
		o.file.Close()
		if o.tmp != "" {
			removeTemp(o.dir, o.tmp)
		}
	}
	return err
}

// copyingThrough, when set (by a test), runs as commitThrough starts its
// copy, the lock held.
var copyingThrough func()

// commitThrough copies the staging file into the regular file that a link
// leads to (or that is mounted over another), from its start, and cuts it
// there. It holds the temporaries' lock, so that a signal that arrives
// meanwhile ends the process only once the file is whole.
//
// A full disk must not leave the file half old and half new: the space
// the new content needs is reserved first (fallocate, where the file
// system has it), and the part beyond the old end is written before any
// old byte is overwritten, so that where nothing could be reserved a
// short write still fails with the old content whole (cut back to its old
// length). Only then is the old content overwritten, which needs no new
// space on a file system that overwrites in place.
func (o *Output) commitThrough() error {
	holdTemporaries()
	defer temporaries.Unlock()
	if copyingThrough != nil {
		copyingThrough()
	}
	defer func() {
		o.file.Close()
		if o.tmp != "" {
			o.dir.remove(o.tmp)
			delete(temporaries.files, temporary{o.dir, o.tmp})
		}
	}()
	n, err := o.file.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	st, err := o.through.Stat()
	if err != nil {
		return err
	}
	old := st.Size()
	if err := reserve(o.through, n); err != nil {
		return err
	}
	if n > old {
		if err := copyRange(o.through, o.file, old, n); err != nil {
			return errors.Join(err, o.through.Truncate(old))
		}
	}
	if err := copyRange(o.through, o.file, 0, min(old, n)); err != nil {
		return err
	}
	return errors.Join(o.through.Truncate(n), o.through.Sync(), o.through.Close())
}

// copyRange copies bytes [from, to) of src into dst at the same offsets.
func copyRange(dst, src *os.File, from, to int64) error {
	_, err := io.Copy(io.NewOffsetWriter(dst, from), io.NewSectionReader(src, from, to-from))
	return err
}

// Abort discards an output that was not committed: nothing appears under
// its name, and a file that was there stays as it was. It is a no-op
// after Commit.
func (o *Output) Abort() {
	if o == nil || o.done {
		return
	}
	o.done = true
	if o.file != nil {
		o.file.Close()
	}
	if o.tmp != "" {
		removeTemp(o.dir, o.tmp)
	}
	o.release()
}

// release closes what an output holds beside the file it writes.
func (o *Output) release() {
	if o.through != nil {
		o.through.Close()
		o.through = nil
	}
	o.dir.close()
}

// ReportTo returns where a command's report goes: to stderr when one of
// outs is standard output, so that the two do not mix; else to stdout.
func ReportTo(outs []*Output, stdout, stderr io.Writer) io.Writer {
	for _, out := range outs {
		if out.stdout() {
			return stderr
		}
	}
	return stdout
}

// stdout reports whether the output is standard output.
func (o *Output) stdout() bool { return o != nil && o.file == nil && !o.done }

// CommitWith writes the output with write, then commits it; if write
// fails, the output is aborted.
func (o *Output) CommitWith(write func(io.Writer) error) error {
	if err := write(o); err != nil {
		o.Abort()
		if o.err != nil {
			return o.err // Write named the output
		}
		return fmt.Errorf("writing %s: %w", o.name, unwrapPath(err))
	}
	return o.Commit()
}

// WriteJSON writes v as indented JSON and commits the output.
func (o *Output) WriteJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		o.Abort()
		return fmt.Errorf("writing %s: %w", o.name, err)
	}
	return o.CommitWith(func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err })
}

// StartOutputs starts the outputs that a command's flags name, before its
// work: flags maps a flag's name to the file it names ("" for none). At
// most one may be standard output, and no two may be the same file
// (place.same). Each output is nil where its flag is empty. abort discards
// every output not yet committed.
func StartOutputs(stdout io.Writer, flags ...[2]string) (outs []*Output, abort func(), err error) {
	abort = func() {
		for _, o := range outs {
			o.Abort()
		}
	}
	type named struct {
		flag string
		at   place
	}
	var seen []named
	for _, f := range flags {
		flag, name := f[0], f[1]
		if name == "" {
			outs = append(outs, nil)
			continue
		}
		at := placeOf(name, 1, nil)
		for _, prev := range seen {
			if !prev.at.same(at) {
				continue
			}
			abort()
			if at.fd == 1 {
				return nil, nil, fmt.Errorf("%w: %s and %s both write to standard output", ErrUsage, prev.flag, flag)
			}
			return nil, nil, fmt.Errorf("%w: %s and %s name the same file %s", ErrUsage, prev.flag, flag, name)
		}
		seen = append(seen, named{flag, at})
		o, err := createOutput(name, stdout, 0o666)
		if err != nil {
			abort()
			return nil, nil, fmt.Errorf("%s: %w", flag, err)
		}
		outs = append(outs, o)
	}
	return outs, abort, nil
}
