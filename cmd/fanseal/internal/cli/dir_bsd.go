//go:build unix && !linux

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirFlags opens a directory to name files in it.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// openUnnamed reports that this system has no unnamed files: outputs use
// named temporary files.
func (d *dir) openUnnamed() (*os.File, error) { return nil, errNoUnnamed }

// linkUnnamed is never called where openUnnamed never succeeds.
func (d *dir) linkUnnamed(*os.File, string) error { return errNoUnnamed }

// mountPoint reports whether name in d is on another device than d, as a
// file mounted over another is; rename(2) cannot replace it.
func (d *dir) mountPoint(name string) bool {
	fi, err := d.lstat(name)
	if err != nil || fi == nil {
		return false
	}
	di, err := d.info()
	return err == nil && fi.dev != di.dev
}

// reserve reserves nothing: commitThrough's order of writes keeps the old
// content where a full disk stops the part beyond the old end.
func reserve(*os.File, int64) error { return nil }

// descriptor reports false: outside Linux a descriptor's names are the
// ones descriptorName knows (/dev/fd/N is a device there, not a link).
func (d *dir) descriptor(string) (int, bool) { return 0, false }
