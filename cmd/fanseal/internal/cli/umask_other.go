//go:build !unix

package cli

import "os"

// umask returns 0: outside Unix the permission bits are not masked.
func umask() os.FileMode { return 0 }
