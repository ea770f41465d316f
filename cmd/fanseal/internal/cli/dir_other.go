//go:build !unix

package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// A dir is a directory, by its path: outside Unix there is no openat, so
// outputs name their files by path.
type dir struct{ path string }

// A fileInfo is what an output needs to know of a file.
type fileInfo struct {
	mode fs.FileMode
	fi   fs.FileInfo
}

func (a *fileInfo) same(b *fileInfo) bool { return a != nil && b != nil && os.SameFile(a.fi, b.fi) }

func (d *dir) close() {}

func (d *dir) info() (*fileInfo, error) {
	fi, err := os.Stat(d.path)
	if err != nil {
		return nil, err
	}
	return &fileInfo{mode: fi.Mode(), fi: fi}, nil
}

func (d *dir) lstat(name string) (*fileInfo, error) {
	fi, err := os.Lstat(filepath.Join(d.path, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &fileInfo{mode: fi.Mode(), fi: fi}, nil
}

func (d *dir) open(name string, flag int, perm uint32) (*os.File, error) {
	return os.OpenFile(filepath.Join(d.path, name), flag, os.FileMode(perm))
}

func (d *dir) createTemp() (*os.File, string, error) {
	f, err := os.CreateTemp(d.path, tempPattern)
	if err != nil {
		return nil, "", err
	}
	return f, filepath.Base(f.Name()), nil
}

func (d *dir) rename(from, to string) error {
	return os.Rename(filepath.Join(d.path, from), filepath.Join(d.path, to))
}

func (d *dir) link(from, to string) error {
	return os.Link(filepath.Join(d.path, from), filepath.Join(d.path, to))
}

func (d *dir) remove(name string)                    { os.Remove(filepath.Join(d.path, name)) }
func (d *dir) writable(string) error                 { return nil }
func (d *dir) guarded(*fileInfo, bool) (bool, error) { return false, nil }

func (d *dir) openSame(name string, _ *fileInfo) (*os.File, error) {
	return d.open(name, os.O_WRONLY, 0)
}
func (d *dir) mountPoint(string) bool { return false }
func reserve(*os.File, int64) error   { return nil }

func (d *dir) openUnnamed() (*os.File, error)     { return nil, errNoUnnamed }
func (d *dir) linkUnnamed(*os.File, string) error { return errNoUnnamed }

// walk resolves name by path: a link is followed by the system.
func walk(name string) (*walked, error) {
	w := &walked{fd: -1}
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if name, err = filepath.EvalSymlinks(name); err != nil {
			return nil, err
		}
		w.viaLink = true
	}
	w.dir, w.base = &dir{path: filepath.Dir(name)}, filepath.Base(name)
	fi, err := w.dir.lstat(w.base)
	w.fi = fi
	return w, err
}

func fdInfo(int) (*fileInfo, error) { return nil, errors.ErrUnsupported }

// dupDescriptor reports that this system names no descriptors by path.
func dupDescriptor(int, string) (*os.File, error) {
	return nil, errors.New("descriptors other than standard output cannot be named here")
}

// keepOwner does nothing where files have no Unix owner.
func keepOwner(*os.File, *fileInfo) error { return nil }
