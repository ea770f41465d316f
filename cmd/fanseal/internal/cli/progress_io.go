package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
)

// progressThreshold is the input size from which encrypt and decrypt show
// progress on a terminal.
const progressThreshold = 64 << 20

// withProgress wraps in so that reading it reports progress on stderr,
// when stderr is a terminal and in is a file of at least
// progressThreshold bytes. The returned function clears the line.
func withProgress(in io.Reader, stderr io.Writer, verb string) (io.Reader, func()) {
	f, ok := in.(*os.File)
	if !ok || !report.IsTerminal(stderr) {
		return in, func() {}
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < progressThreshold {
		return in, func() {}
	}
	p := &progressReader{r: in, w: stderr, total: st.Size(), verb: verb}
	return p, func() { fmt.Fprint(stderr, "\r\033[K") }
}

type progressReader struct {
	r     io.Reader
	w     io.Writer
	verb  string
	n     int64
	total int64
	last  time.Time
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if now := time.Now(); now.Sub(p.last) > 100*time.Millisecond {
		p.last = now
		fmt.Fprintf(p.w, "\r%s: %d%% (%d of %d MiB)", p.verb, p.n*100/p.total, p.n>>20, p.total>>20)
	}
	return n, err
}
