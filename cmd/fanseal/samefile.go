package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A place is what an output or input path leads to, for telling whether
// two paths name one file: a descriptor of the process, an existing file
// (by device and inode, through any links), or, for a file that does not
// exist yet, the name it would get in its directory (by the directory's
// device and inode).
type place struct {
	fd   int         // the descriptor, or -1
	file fs.FileInfo // the existing file, or nil
	dir  fs.FileInfo // the directory of a file that does not exist, or nil
	base string      // that file's name in dir
}

// placeOf returns what name leads to; "-" and "" are standard output.
func placeOf(name string) place {
	if name == "" || name == "-" {
		return place{fd: 1}
	}
	if fd, ok := descriptorName(name); ok {
		return place{fd: fd}
	}
	p := place{fd: -1}
	if fi, err := os.Stat(name); err == nil {
		p.file = fi
	} else if errors.Is(err, fs.ErrNotExist) {
		if dir, err := os.Stat(filepath.Dir(name)); err == nil {
			p.dir, p.base = dir, filepath.Base(name)
		}
	}
	return p
}

// sameFile reports whether the outputs a and b would write one file: the
// same descriptor, the same existing file (a character device such as
// /dev/null excepted: writing it twice destroys nothing), or the same name
// in the same directory, however each path spells it.
func sameFile(a, b string) bool {
	pa, pb := placeOf(a), placeOf(b)
	switch {
	case pa.fd >= 0 || pb.fd >= 0:
		return pa.fd == pb.fd
	case pa.file != nil && pb.file != nil:
		return os.SameFile(pa.file, pb.file) && pa.file.Mode()&fs.ModeCharDevice == 0
	case pa.dir != nil && pb.dir != nil:
		return pa.base == pb.base && os.SameFile(pa.dir, pb.dir)
	}
	return false
}

// isStdout reports whether the output name is standard output.
func isStdout(name string) bool { return placeOf(name).fd == 1 }

// An input is a file a command reads, named for messages: "input",
// "identity file", "recipients file".
type input struct{ what, name string }

// inputs lists a command's input file (the payload or envelope) and its
// key files, each named what.
func inputs(in, what string, keyFiles []string) []input {
	list := []input{{"input", in}}
	for _, f := range keyFiles {
		list = append(list, input{what, f})
	}
	return list
}

// refuseSameAsInput refuses, before any work, an output that is the same
// regular file (device and inode, through any links and spellings) as one
// of the command's inputs: writing it would destroy what is being read.
func refuseSameAsInput(flag, out string, inputs ...input) error {
	po := placeOf(out)
	if po.file == nil || !po.file.Mode().IsRegular() {
		return nil
	}
	for _, in := range inputs {
		if in.name == "" || in.name == "-" {
			continue
		}
		if pi := placeOf(in.name); pi.file != nil && os.SameFile(po.file, pi.file) {
			return fmt.Errorf("input and output file are the same: %s %s is the %s %s", flag, out, in.what, in.name)
		}
	}
	return nil
}
