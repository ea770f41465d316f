//go:build unix

package cli

import (
	"os"
	"syscall"
)

// umask returns the process's file mode creation mask. There is no call
// that only reads it, so it is set and restored at once; the command
// creates files only from the goroutine that calls this, so none is
// created in between.
func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}
