package cli

import "errors"

// A walked path is where a path leads: the open directory that holds its
// last name, that name, and what is there (nil for nothing).
type walked struct {
	dir     *dir
	base    string
	fi      *fileInfo
	viaLink bool // the last name was reached through a symbolic link
	fd      int  // a descriptor a link led to (/dev/stdout), or -1
}

// errProtectedLink refuses a link that the kernel's protected_symlinks
// rule would not let the caller follow.
var errProtectedLink = errors.New("a symbolic link in a world-writable sticky directory, owned by neither you nor the directory's owner; it is not followed (the kernel's protected_symlinks rule)")

// errProtectedFile refuses to replace a file that the kernel's
// protected_regular rule, and a sticky directory's own rule, protect.
var errProtectedFile = errors.New("a file in a sticky directory, owned by neither you nor the directory's owner; it is not replaced (the kernel's protected_regular rule)")

// errProtectedFIFO refuses to write a FIFO that the kernel's
// protected_fifos rule protects: one that neither the caller nor the
// directory's owner owns, in a sticky directory.
var errProtectedFIFO = errors.New("a FIFO in a sticky directory, owned by neither you nor the directory's owner; it is not written (the kernel's protected_fifos rule)")

// errSwapped refuses a file that is not the one the walk found: it was
// replaced between the two.
var errSwapped = errors.New("it was replaced while fanseal opened it")
