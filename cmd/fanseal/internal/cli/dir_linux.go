package cli

import (
	"errors"
	"os"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dirFlags opens a directory only to name files in it: O_PATH needs no
// permission to read it.
const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// openUnnamed opens a new unnamed file in d, readable and writable only
// by its owner: O_TMPFILE, which leaves nothing behind if the process
// dies. It returns errNoUnnamed where the file system or kernel has no
// unnamed files, or /proc (which linkUnnamed needs) is not mounted.
func (d *dir) openUnnamed() (*os.File, error) {
	if unnamedOff != "" {
		return nil, errNoUnnamed
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, errNoUnnamed
	}
	fd, err := unix.Openat(d.fd, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	switch {
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EISDIR), errors.Is(err, unix.EINVAL):
		return nil, errNoUnnamed
	case err != nil:
		return nil, err
	}
	return os.NewFile(uintptr(fd), path.Join(d.path, "(unnamed)")), nil
}

// linkUnnamed gives the unnamed file f the name name in d; it fails if
// anything has that name.
func (d *dir) linkUnnamed(f *os.File, name string) error {
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), d.fd, name, unix.AT_SYMLINK_FOLLOW)
}

// mountPoint reports whether name in d is the root of a mount: a file
// mounted over another, as containers bind /etc/hosts and
// /etc/resolv.conf. rename(2) cannot replace it (EBUSY), so it is filled
// in place. Where statx cannot say, a mount ID or device other than the
// directory's says it.
func (d *dir) mountPoint(name string) bool {
	const mask = unix.STATX_TYPE | unix.STATX_MNT_ID
	var f, p unix.Statx_t
	if unix.Statx(d.fd, name, unix.AT_SYMLINK_NOFOLLOW, mask, &f) != nil {
		return false
	}
	if f.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		return f.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
	}
	if unix.Statx(d.fd, "", unix.AT_EMPTY_PATH, mask, &p) != nil {
		return false
	}
	if f.Mask&p.Mask&unix.STATX_MNT_ID != 0 {
		return f.Mnt_id != p.Mnt_id
	}
	return f.Dev_major != p.Dev_major || f.Dev_minor != p.Dev_minor
}

// reserve allocates the blocks f needs to hold n bytes, without changing
// its length, so that a full disk fails here and not half way through an
// overwrite. A file system without fallocate reserves nothing.
func reserve(f *os.File, n int64) error {
	if n == 0 {
		return nil
	}
	err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return nil
	}
	return err
}

// descriptor reports whether name in d names descriptor N of this
// process: d is this process's fd directory in /proc (its own, a
// thread's, however the path reached it: /proc/self/task/TID/fd, a
// relative link, a working directory there) and name is N.
func (d *dir) descriptor(name string) (int, bool) {
	fd, ok := decimal(name)
	if !ok {
		return 0, false
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(d.fd))
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(p, "/proc/"+strconv.Itoa(os.Getpid())+"/")
	if !ok {
		return 0, false
	}
	if rest == "fd" {
		return fd, true
	}
	if tid, ok := strings.CutPrefix(rest, "task/"); ok {
		tid, ok = strings.CutSuffix(tid, "/fd")
		_, isTID := decimal(tid)
		return fd, ok && isTID
	}
	return 0, false
}
