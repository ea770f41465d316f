package report

import (
	"bytes"
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
	drawn    bool // the bar is on the screen now
	cleared  bool // Done has cleared it for good
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
	p.draw()
}

// draw puts the bar on its line.
func (p *Bar) draw() {
	if !p.on || p.cleared || p.n == 0 {
		return
	}
	const width = 30
	fill := min(width, p.n*width/max(1, p.total))
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("#", fill), strings.Repeat(".", width-fill), min(p.n, p.total), p.total)
	p.drawn = true
}

// clear takes the bar off its line, leaving the cursor at its start.
func (p *Bar) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
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
	if p != nil && !p.cleared {
		p.clear()
		p.cleared = true
	}
}

// Lines returns a writer of whole lines to w, for a report printed while
// the bar runs: each line is written on a line of its own, the bar taken
// off before it and drawn again after it, so no line starts with the bar;
// and where w is a terminal, a legend line ("legend: ...") longer than the
// terminal is wide is folded at its width, its continuation lines indented
// under the legend's first word. A line without its newline yet waits for
// it, or for Flush.
func (p *Bar) Lines(w io.Writer) *LineWriter {
	return &LineWriter{bar: p, w: w, width: Width(w)}
}

// A LineWriter is the writer Lines returns.
type LineWriter struct {
	bar     *Bar
	w       io.Writer
	width   int // the terminal's width, or 0 where w is no terminal
	partial []byte
}

func (l *LineWriter) Write(b []byte) (int, error) {
	l.partial = append(l.partial, b...)
	i := bytes.LastIndexByte(l.partial, '\n')
	if i < 0 {
		return len(b), nil
	}
	lines := l.partial[:i+1]
	if l.bar != nil {
		l.bar.clear()
	}
	_, err := io.WriteString(l.w, Fold(string(lines), l.width))
	l.partial = append(l.partial[:0], l.partial[i+1:]...)
	if l.bar != nil {
		l.bar.draw()
	}
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

// Flush writes a last line that has no newline.
func (l *LineWriter) Flush() error {
	if len(l.partial) == 0 {
		return nil
	}
	_, err := l.Write([]byte{'\n'})
	return err
}

// legendIndent is how far a legend's continuation lines are indented.
const legendIndent = len("legend: ")

// Fold folds every legend line of text that is longer than width at the
// last space that fits, indenting its continuation lines; width 0 folds
// nothing. Other lines are left as they are: tables keep their columns.
func Fold(text string, width int) string {
	if width <= legendIndent+10 {
		return text
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if !strings.HasPrefix(line, "legend: ") || len(strings.TrimRight(line, "\n")) <= width {
			b.WriteString(line)
			continue
		}
		nl := strings.HasSuffix(line, "\n")
		rest, prefix := strings.TrimRight(line, "\n"), ""
		for len(prefix)+len(rest) > width {
			cut := strings.LastIndexByte(rest[:width-len(prefix)+1], ' ')
			if cut <= 0 {
				break // a word longer than the line: leave it whole
			}
			b.WriteString(prefix + rest[:cut] + "\n")
			rest, prefix = strings.TrimLeft(rest[cut:], " "), strings.Repeat(" ", legendIndent)
		}
		b.WriteString(prefix + rest)
		if nl {
			b.WriteString("\n")
		}
	}
	return b.String()
}
