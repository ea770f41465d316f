package report

import (
	"fmt"
	"io"
	"strings"
)

// A Bar draws a progress bar on w when w is a terminal, and nothing
// otherwise, so that long work shows progress to a person and stays quiet
// in a pipe. The zero Bar and a nil *Bar draw nothing.
type Bar struct {
	w        io.Writer
	on       bool
	total, n int
	cleared  bool
}

// NewBar returns a bar of total steps on w.
func NewBar(w io.Writer, total int) *Bar {
	return &Bar{w: w, on: IsTerminal(w), total: total}
}

// Step advances the bar by one step.
func (p *Bar) Step() {
	if p != nil {
		p.To(p.n + 1)
	}
}

// To advances the bar to n steps done, if that is further.
func (p *Bar) To(n int) {
	if p == nil || n <= p.n {
		return
	}
	p.n = n
	if p.on {
		const width = 30
		fill := min(width, p.n*width/max(1, p.total))
		fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), min(p.n, p.total), p.total)
	}
}

// Steps returns the steps done, as the bar counts them.
func (p *Bar) Steps() int {
	if p == nil {
		return 0
	}
	return p.n
}

// Done clears the bar's line, once.
func (p *Bar) Done() {
	if p != nil && p.on && p.n > 0 && !p.cleared {
		fmt.Fprint(p.w, "\r\033[K")
		p.cleared = true
	}
}
