package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// A place is what an output or input path leads to, for telling whether
// two paths name one file: a descriptor of the process, an existing file
// (by device and inode, through any links), or, for a file that does not
// exist yet, the name it would get in its directory (by the directory's
// device and inode), all as walk finds them.
type place struct {
	fd   int       // the descriptor, or -1
	file *fileInfo // the file: the existing one, or the descriptor's
	dir  *fileInfo // the directory of a file that does not exist, or nil
	base string    // that file's name in dir
}

// placeOf returns what name leads to; "-" and "" are the descriptor std
// (0 for an input, 1 for an output), described when the command's own
// file is the process's (*os.File).
func placeOf(name string, std int, file any) place {
	if name == "" || name == "-" {
		p := place{fd: std}
		if f, ok := file.(*os.File); ok {
			p.file, _ = fdInfo(int(f.Fd()))
		}
		return p
	}
	if fd, ok := descriptorName(name); ok {
		p := place{fd: fd}
		p.file, _ = fdInfo(fd)
		return p
	}
	p := place{fd: -1}
	w, err := walk(name)
	if err != nil {
		return p
	}
	defer w.dir.close()
	switch {
	case w.fd >= 0:
		p.fd = w.fd
		p.file, _ = fdInfo(w.fd)
	case w.fi != nil:
		p.file = w.fi
	default:
		p.dir, _ = w.dir.info()
		p.base = w.base
	}
	return p
}

// same reports whether the outputs at p and q would write one file: the
// same descriptor, the same existing file (a character device such as
// /dev/null excepted: writing it twice destroys nothing), or the same name
// in the same directory, however each path spells it.
func (p place) same(q place) bool {
	switch {
	case p.fd >= 0 && p.fd == q.fd:
		return true
	case p.file != nil && q.file != nil:
		return p.file.same(q.file) && p.file.mode&fs.ModeCharDevice == 0
	case p.dir != nil && q.dir != nil:
		return p.base == q.base && p.dir.same(q.dir)
	}
	return false
}

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
// regular file (device and inode, through any links, spellings and
// descriptors, standard input and output included) as one of the
// command's inputs: writing it would destroy what is being read.
func refuseSameAsInput(flag, out string, stdin io.Reader, stdout io.Writer, inputs ...input) error {
	po := placeOf(out, 1, stdout)
	if po.file == nil || !po.file.mode.IsRegular() {
		return nil
	}
	for _, in := range inputs {
		if pi := placeOf(in.name, 0, stdin); pi.file != nil && po.file.same(pi.file) {
			what := in.name
			if what == "" || what == "-" {
				what = "(standard input)"
			}
			if out == "" || out == "-" {
				out = "(standard output)"
			}
			return fmt.Errorf("input and output file are the same: %s %s is the %s %s", flag, out, in.what, what)
		}
	}
	return nil
}
