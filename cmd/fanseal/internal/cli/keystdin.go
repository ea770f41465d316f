package cli

import (
	"fmt"
	"io"
)

// stdinName is how errors name keys read from standard input (-R -, -i -).
const stdinName = "standard input"

// A stdinUse hands standard input to the one use of a command that may
// read it: the payload (INPUT absent or "-"), or one -R - or -i -.
type stdinUse struct {
	r    io.Reader
	user string // who took it; empty while it is free
}

// newStdinUse returns the uses of stdin; payload says the command reads
// its payload from it, so no key may come from there.
func newStdinUse(stdin io.Reader, payload bool) *stdinUse {
	s := &stdinUse{r: stdin}
	if payload {
		s.user = "the input"
	}
	return s
}

// take returns standard input for what (such as "-R -"), or an error if
// another use has it already.
func (s *stdinUse) take(what string) (io.Reader, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: %s: standard input cannot hold keys here", ErrUsage, what)
	}
	if s.user != "" {
		if s.user == "the input" {
			return nil, fmt.Errorf("%w: %s: standard input is already the input (the payload); give the input as a file, or the keys in one", ErrUsage, what)
		}
		return nil, fmt.Errorf("%w: %s: standard input is already read by %s; only one of them can read it", ErrUsage, what, s.user)
	}
	s.user = what
	return s.r, nil
}

// payloadFromStdin reports whether a command's INPUT is standard input.
func payloadFromStdin(pos []string) bool {
	name := first(pos)
	return name == "" || name == "-"
}
