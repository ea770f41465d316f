package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a new unnamed file in dir, readable and writable only
// by its owner: O_TMPFILE, which leaves nothing behind if the process
// dies. It returns errNoUnnamed where the file system or kernel has no
// unnamed files, or /proc (which linkUnnamed needs) is not mounted.
func openUnnamed(dir string) (*os.File, error) {
	if unnamedOff != "" {
		return nil, errNoUnnamed
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, errNoUnnamed
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	switch {
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EISDIR), errors.Is(err, unix.EINVAL):
		return nil, errNoUnnamed
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed)")), nil
}

// linkUnnamed gives the unnamed file f the name target. Without replace
// it is linked there directly, and linkat fails if anything has that name
// by then. With replace, since linkat cannot replace a file, f is first
// linked under a hidden name beside target (recorded for removeOnSignal for
// the instant it exists; it holds the complete output), then renamed.
func linkUnnamed(f *os.File, target string, replace bool) error {
	self := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if !replace {
		return unix.Linkat(unix.AT_FDCWD, self, unix.AT_FDCWD, target, unix.AT_SYMLINK_FOLLOW)
	}
	var r [8]byte
	rand.Read(r[:])
	tmp := filepath.Join(filepath.Dir(target), strings.Replace(tempPattern, "*", hex.EncodeToString(r[:]), 1))
	err := withTemporary(tmp, func() error {
		return unix.Linkat(unix.AT_FDCWD, self, unix.AT_FDCWD, tmp, unix.AT_SYMLINK_FOLLOW)
	})
	if err != nil {
		return err
	}
	return commitTemp(tmp, target, true)
}
