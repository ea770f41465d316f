package cli

import (
	"errors"
	"os"
	"path"
	"strconv"

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
