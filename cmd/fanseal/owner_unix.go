//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file it replaces, where
// the process may (root may; anyone may keep their own group): the new
// file then belongs to whoever the old one did. Where it may not, f keeps
// the owner a new file gets, as cp's new files do.
func keepOwner(f, old *os.File) error {
	if old == nil {
		return nil
	}
	fi, err := old.Stat()
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil && !errors.Is(err, os.ErrPermission) {
		return err
	}
	return nil
}
