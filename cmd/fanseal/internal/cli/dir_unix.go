//go:build unix

package cli

import (
	"errors"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// A dir is an open directory. An output's staging file, the file it
// replaces or creates, and the file it fills through a link are all
// reached relative to it: what the path named when the command started
// is what the commit writes, whatever is renamed or linked meanwhile.
type dir struct {
	fd   int
	path string // for messages and tests only
}

// A fileInfo is what an output needs to know of a file.
type fileInfo struct {
	mode     fs.FileMode
	uid, gid uint32
	dev, ino uint64
}

func infoOf(st *unix.Stat_t) *fileInfo {
	fi := &fileInfo{mode: fs.FileMode(st.Mode & 0o777), uid: st.Uid, gid: st.Gid, dev: uint64(st.Dev), ino: uint64(st.Ino)}
	if st.Mode&unix.S_ISVTX != 0 {
		fi.mode |= fs.ModeSticky
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		fi.mode |= fs.ModeDir
	case unix.S_IFLNK:
		fi.mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		fi.mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		fi.mode |= fs.ModeSocket
	case unix.S_IFCHR:
		fi.mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		fi.mode |= fs.ModeDevice
	}
	return fi
}

// same reports whether a and b are one file.
func (a *fileInfo) same(b *fileInfo) bool {
	return a != nil && b != nil && a.dev == b.dev && a.ino == b.ino
}

// openRoot opens the directory a walk starts from: / for an absolute
// path, the working directory otherwise.
func openRoot(abs bool) (*dir, error) {
	p := "."
	if abs {
		p = "/"
	}
	fd, err := unix.Open(p, dirFlags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return &dir{fd: fd, path: p}, nil
}

// sub opens the directory name in d, never through a link.
func (d *dir) sub(name string) (*dir, error) {
	fd, err := unix.Openat(d.fd, name, dirFlags|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	return &dir{fd: fd, path: path.Join(d.path, name)}, nil
}

func (d *dir) close() {
	if d != nil && d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// info describes the directory itself.
func (d *dir) info() (*fileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return nil, err
	}
	return infoOf(&st), nil
}

// lstat describes name in d without following a link; nil, nil if there
// is nothing of that name.
func (d *dir) lstat(name string) (*fileInfo, error) {
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return infoOf(&st), nil
}

func (d *dir) readlink(name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(d.fd, name, buf)
	if err != nil {
		return "", err
	}
	if n == len(buf) {
		return "", unix.ENAMETOOLONG
	}
	return string(buf[:n]), nil
}

// open opens name in d, never through a link.
func (d *dir) open(name string, flag int, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(d.fd, name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path.Join(d.path, name)), nil
}

// openSame opens name in d for writing, never through a link, and only
// if it is still the file fi that the walk found there: a file swapped in
// between the two is refused (errSwapped), so that the checks made on fi
// hold for what is written.
func (d *dir) openSame(name string, fi *fileInfo) (*os.File, error) {
	f, err := d.open(name, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	now, err := fdInfo(int(f.Fd()))
	if err == nil && !now.same(fi) {
		err = errSwapped
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// createTemp creates a new hidden file in d, readable and writable by its
// owner only, and returns it and its name. The name's length does not
// depend on the output's, so it fits wherever a short name does.
func (d *dir) createTemp() (*os.File, string, error) {
	for range 100 {
		name := tempName()
		f, err := d.open(name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return f, name, err
	}
	return nil, "", unix.EEXIST
}

// rename renames from to to within d, replacing to.
func (d *dir) rename(from, to string) error { return unix.Renameat(d.fd, from, d.fd, to) }

// link gives the file from a second name to in d; it fails if to exists.
func (d *dir) link(from, to string) error { return unix.Linkat(d.fd, from, d.fd, to, 0) }

func (d *dir) remove(name string) { unix.Unlinkat(d.fd, name, 0) }

// writable reports whether the caller may write the existing file name,
// by its effective IDs, as open(2) would judge it.
func (d *dir) writable(name string) error {
	return unix.Faccessat(d.fd, name, unix.W_OK, unix.AT_EACCESS)
}

// guarded reports whether the sticky directory d keeps fi, a file or link
// in it, from the caller: one that neither the caller nor the directory's
// owner owns. world restricts it to world-writable directories, as the
// kernel's protected_symlinks and protected_regular rules do.
func (d *dir) guarded(fi *fileInfo, world bool) (bool, error) {
	di, err := d.info()
	if err != nil {
		return false, err
	}
	if di.mode&fs.ModeSticky == 0 || world && di.mode&0o002 == 0 {
		return false, nil
	}
	uid := uint32(os.Geteuid())
	return fi.uid != uid && fi.uid != di.uid, nil
}

// fdInfo describes the process's descriptor fd.
func fdInfo(fd int) (*fileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	return infoOf(&st), nil
}

// dupDescriptor returns a new descriptor for the process's descriptor fd,
// so that the output writes where fd does, with its mode (append
// included), and closing it leaves fd open. Only a descriptor the process
// was given and that is open for writing will do: every descriptor
// fanseal opens itself is close-on-exec.
func dupDescriptor(fd int, name string) (*os.File, error) {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	switch {
	case err != nil:
		return nil, err
	case flags&unix.FD_CLOEXEC != 0:
		return nil, errors.New("not a descriptor fanseal was given")
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil && fl&unix.O_ACCMODE == unix.O_RDONLY {
		return nil, errors.New("the descriptor is open for reading only")
	}
	n, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(n)
	return os.NewFile(uintptr(n), name), nil
}

// keepOwner gives f the owner and group of the file it replaces, where
// the process may (root may; anyone may keep their own group): the new
// file then belongs to whoever the old one did. Where it may not, f keeps
// the owner a new file gets, as cp's new files do.
func keepOwner(f *os.File, old *fileInfo) error {
	if old == nil {
		return nil
	}
	if err := f.Chown(int(old.uid), int(old.gid)); err != nil && !errors.Is(err, os.ErrPermission) {
		return err
	}
	return nil
}
