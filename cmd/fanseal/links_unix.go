//go:build unix

package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// errProtectedLink refuses a link that the kernel's protected_symlinks
// rule would not let the caller follow.
var errProtectedLink = errors.New("a symbolic link in a world-writable sticky directory, owned by neither you nor the directory's owner; it is not followed (the kernel's protected_symlinks rule)")

// followAllowed applies the kernel's protected_symlinks rule to the link
// name (fi is its Lstat), whatever the system's setting: a link in a
// world-writable sticky directory is followed only if the caller or the
// directory's owner owns it. Another user's link in /tmp could otherwise
// lead a privileged command to a file it never meant to write. A sticky
// directory lets nobody else replace a link the check allowed.
func followAllowed(name string, fi fs.FileInfo) error {
	dir, err := os.Stat(filepath.Dir(name))
	if err != nil {
		return err
	}
	if dir.Mode()&fs.ModeSticky == 0 || dir.Mode().Perm()&0o002 == 0 {
		return nil
	}
	link, ok1 := fi.Sys().(*syscall.Stat_t)
	d, ok2 := dir.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return nil
	}
	if int(link.Uid) == os.Geteuid() || link.Uid == d.Uid {
		return nil
	}
	return errProtectedLink
}

// dupDescriptor returns a new descriptor for the process's descriptor fd,
// so that the output writes where fd does, with its mode (append
// included), and closing it leaves fd open.
func dupDescriptor(fd int, name string) (*os.File, error) {
	n, err := syscall.Dup(fd)
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: name, Err: err}
	}
	syscall.CloseOnExec(n)
	return os.NewFile(uintptr(n), name), nil
}
