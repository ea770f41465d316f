//go:build unix

package cli

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks is how many symbolic links one walk follows, as Linux's
// MAXSYMLINKS.
const maxLinks = 40

// walk resolves name as open(2) would, one name at a time with fstatat
// and openat, never letting the kernel follow a link: each link is read
// and followed here, once the kernel's protected_symlinks rule allows it
// (whatever the system's setting). Every directory on the way is opened,
// so that a directory or link swapped in later changes nothing: the
// result's dir is the directory that held the last name during the walk.
func walk(name string) (*walked, error) {
	cur, err := openRoot(filepath.IsAbs(name))
	if err != nil {
		return nil, err
	}
	w := &walked{fd: -1}
	queue := strings.Split(name, "/")
	links := 0
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		last := len(queue) == 0
		switch c {
		case "", ".", "..":
			if c == ".." {
				next, err := cur.sub("..")
				cur.close()
				if err != nil {
					return nil, err
				}
				cur = next
			}
			if last {
				cur.close()
				return nil, unix.EISDIR
			}
			continue
		}
		fi, err := cur.lstat(c)
		if err != nil {
			cur.close()
			return nil, err
		}
		if fi == nil {
			if last {
				w.dir, w.base = cur, c
				return w, nil
			}
			cur.close()
			return nil, unix.ENOENT
		}
		if fi.mode&fs.ModeSymlink != 0 {
			if fd, ok := cur.descriptor(c); ok && last {
				cur.close() // N in this process's fd directory, however reached
				w.fd = fd
				return w, nil
			}
			if links++; links > maxLinks {
				cur.close()
				return nil, unix.ELOOP
			}
			if guarded, err := cur.guarded(fi, true); err != nil || guarded {
				cur.close()
				if err == nil {
					err = errProtectedLink
				}
				return nil, err
			}
			target, err := cur.readlink(c)
			if err != nil {
				cur.close()
				return nil, err
			}
			if fd, ok := descriptorName(target); ok && last && filepath.IsAbs(target) {
				cur.close()
				w.fd = fd
				return w, nil
			}
			if filepath.IsAbs(target) {
				cur.close()
				if cur, err = openRoot(true); err != nil {
					return nil, err
				}
			}
			w.viaLink = w.viaLink || last
			queue = append(strings.Split(target, "/"), queue...)
			continue
		}
		if last {
			w.dir, w.base, w.fi = cur, c, fi
			return w, nil
		}
		next, err := cur.sub(c)
		if errors.Is(err, unix.ELOOP) && links < maxLinks {
			links++
			queue = append([]string{c}, queue...) // it became a link meanwhile
			continue
		}
		cur.close()
		if err != nil {
			return nil, err
		}
		cur = next
	}
	cur.close()
	return nil, unix.ENOENT
}
