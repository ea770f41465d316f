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
