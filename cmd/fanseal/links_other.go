//go:build !unix

package main

import (
	"errors"
	"io/fs"
	"os"
)

// followAllowed allows every link where files have no Unix owner.
func followAllowed(string, fs.FileInfo) error { return nil }

// dupDescriptor reports that this system names no descriptors by path
// beside standard output.
func dupDescriptor(int, string) (*os.File, error) {
	return nil, errors.New("descriptors other than standard output cannot be named here")
}
