package stream

import (
	"crypto/cipher"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Parallel sealing and opening. Chunks are independent once their counter
// and last flag are known, so up to workers chunks are sealed or opened at
// once, in a sliding window, and written or returned in order. The output
// is byte-identical to Writer's and Reader's. Memory stays bounded at
// workers+1 chunk buffers. A payload of one chunk never leaves the calling
// goroutine.

func workerCount(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

// A job is one chunk in flight.
type job struct {
	buf   []byte // plaintext (writer) or ciphertext plus one look-ahead byte (reader)
	out   []byte // result
	work  []byte // the reader's plaintext buffer, reused
	nonce [12]byte
	err   error
	last  bool
	done  chan struct{}
}

// NewParallelWriter returns a WriteCloser that seals like NewWriter with
// up to workers goroutines (0 means GOMAXPROCS; 1 is NewWriter). Each
// chunk in flight is sealed by a goroutine of its own that ends as soon
// as the chunk is sealed, so a writer abandoned without Close leaves no
// goroutine behind (the stream it wrote is incomplete: only Close writes
// the last chunk).
func NewParallelWriter(a cipher.AEAD, dst io.Writer, workers int) io.WriteCloser {
	workers = workerCount(workers)
	if workers == 1 {
		return NewWriter(a, dst)
	}
	return &parallelWriter{a: a, dst: dst, workers: workers}
}

type parallelWriter struct {
	a        cipher.AEAD
	dst      io.Writer
	workers  int
	cur      *job
	inflight []*job
	free     []*job
	counter  uint64
	err      error
	// sealing holds a token per chunk being sealed: at most workers at a
	// time, while up to 2·workers are in flight.
	sealing chan struct{}
	// direct holds the output of sealDirect, reused; its size follows the
	// caller's largest write.
	direct []byte
}

func (w *parallelWriter) getJob() *job {
	if n := len(w.free); n > 0 {
		j := w.free[n-1]
		w.free = w.free[:n-1]
		j.buf = j.buf[:0]
		return j
	}
	return &job{buf: make([]byte, 0, encChunkSize)}
}

// Write implements io.Writer.
func (w *parallelWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	total := len(p)
	for len(p) > 0 {
		if w.cur == nil {
			w.cur = w.getJob()
		}
		if len(w.cur.buf) == 0 && len(p) > ChunkSize {
			// Whole chunks with more data after them: seal them straight
			// from p, without a copy, all workers at once, then write them
			// in one piece. p is not retained past this call.
			k := min((len(p)-1)/ChunkSize, maxDirect)
			if err := w.sealDirect(p[:k*ChunkSize], k); err != nil {
				return total - len(p), err
			}
			p = p[k*ChunkSize:]
			continue
		}
		if len(w.cur.buf) == ChunkSize {
			// More data follows a full chunk, so it is not the last.
			if err := w.dispatch(false); err != nil {
				return total - len(p), err
			}
			continue
		}
		n := min(ChunkSize-len(w.cur.buf), len(p))
		w.cur.buf = append(w.cur.buf, p[:n]...)
		p = p[n:]
	}
	return total, nil
}

// maxDirect bounds the chunks sealDirect seals at once, and so the memory
// it holds (4 MiB).
const maxDirect = 64

// sealDirect seals k whole, non-final chunks of p on all workers and
// writes them, after the chunks already in flight.
func (w *parallelWriter) sealDirect(p []byte, k int) error {
	if err := w.flushAll(); err != nil {
		return err
	}
	if w.counter > ^uint64(0)-uint64(k) {
		w.err = errTooLarge
		return w.err
	}
	if cap(w.direct) < k*encChunkSize {
		w.direct = make([]byte, k*encChunkSize)
	}
	out := w.direct[:k*encChunkSize]
	first := w.counter
	window(w.workers, k, func(i int) {
		var n [12]byte
		nonce(&n, first+uint64(i), false)
		w.a.Seal(out[i*encChunkSize:i*encChunkSize], n[:], p[i*ChunkSize:(i+1)*ChunkSize], nil)
	})
	w.counter += uint64(k)
	if _, err := w.dst.Write(out); err != nil {
		w.err = err
		w.drain()
		return err
	}
	return nil
}

// sealJob seals a job's buffer in place.
func (w *parallelWriter) sealJob(j *job, n *[12]byte) {
	j.out = w.a.Seal(j.buf[:0], n[:], j.buf, nil)
}

// dispatch seals the current chunk, on a goroutine unless it is the last
// with nothing in flight, and writes out the oldest chunk when the window
// is full.
func (w *parallelWriter) dispatch(last bool) error {
	j := w.cur
	w.cur = nil
	if w.counter == ^uint64(0) {
		w.err = errTooLarge
		return w.err
	}
	var n [12]byte
	nonce(&n, w.counter, last)
	w.counter++
	if last && len(w.inflight) == 0 {
		w.sealJob(j, &n)
		return w.write(j)
	}
	if w.sealing == nil {
		w.sealing = make(chan struct{}, w.workers)
	}
	j.nonce, j.done = n, make(chan struct{})
	go func() {
		w.sealing <- struct{}{}
		w.sealJob(j, &j.nonce)
		<-w.sealing
		close(j.done)
	}()
	w.inflight = append(w.inflight, j)
	if len(w.inflight) >= 2*w.workers {
		return w.flushOne()
	}
	return nil
}

func (w *parallelWriter) flushOne() error {
	j := w.inflight[0]
	<-j.done
	w.inflight = w.inflight[1:]
	return w.write(j)
}

// flushAll writes every chunk in flight, in order.
func (w *parallelWriter) flushAll() error {
	for len(w.inflight) > 0 {
		if err := w.flushOne(); err != nil {
			return err
		}
	}
	return nil
}

func (w *parallelWriter) write(j *job) error {
	_, err := w.dst.Write(j.out)
	w.free = append(w.free, j)
	if err != nil {
		w.err = err
		w.drain()
	}
	return err
}

// drain waits for every chunk in flight, so no goroutine outlives the
// writer's failure.
func (w *parallelWriter) drain() {
	for _, j := range w.inflight {
		<-j.done
	}
	w.inflight = nil
}

// Close seals the last chunk and writes every chunk still in flight. It
// does not close the underlying writer.
func (w *parallelWriter) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.cur == nil {
		w.cur = w.getJob()
	}
	if err := w.dispatch(true); err != nil {
		return err
	}
	if err := w.flushAll(); err != nil {
		return err
	}
	w.err = errClosed
	return nil
}

// NewParallelReader returns a Reader that opens like NewReader with up to
// workers goroutines (0 means GOMAXPROCS; 1 is NewReader). It reads ahead
// at most workers chunks.
func NewParallelReader(a cipher.AEAD, src io.Reader, workers int) io.Reader {
	workers = workerCount(workers)
	if workers == 1 {
		return NewReader(a, src)
	}
	return &parallelReader{a: a, src: src, workers: workers}
}

type parallelReader struct {
	a        cipher.AEAD
	src      io.Reader
	workers  int
	inflight []*job
	free     []*job
	cur      *job
	out      []byte
	carry    byte
	hasCarry bool
	srcDone  bool
	counter  uint64
	err      error
}

func (r *parallelReader) getJob() *job {
	if n := len(r.free); n > 0 {
		j := r.free[n-1]
		r.free = r.free[:n-1]
		j.err, j.out = nil, nil
		return j
	}
	return &job{buf: make([]byte, encChunkSize+1)}
}

// Read implements io.Reader.
func (r *parallelReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.cur != nil {
			r.free = append(r.free, r.cur)
			r.cur = nil
		}
		if r.err != nil {
			return 0, r.err
		}
		r.fill()
		j := r.inflight[0]
		<-j.done
		r.inflight = r.inflight[1:]
		if j.err != nil {
			r.err = j.err
			for _, k := range r.inflight {
				<-k.done
			}
			r.inflight = nil
			return 0, r.err
		}
		r.cur, r.out = j, j.out
		if j.last {
			r.err = io.EOF
		}
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// fill reads chunks and starts opening them until the window is full or
// the input ends.
func (r *parallelReader) fill() {
	for !r.srcDone && len(r.inflight) < r.workers {
		j := r.getJob()
		j.done = make(chan struct{})
		have := 0
		if r.hasCarry {
			j.buf[0], have = r.carry, 1
		}
		n, err := io.ReadFull(r.src, j.buf[have:])
		n += have
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			j.last, r.srcDone = true, true
		case err != nil:
			j.err, r.srcDone = fmt.Errorf("reading the payload: %w", err), true
			close(j.done)
			r.inflight = append(r.inflight, j)
			return
		default:
			r.carry, r.hasCarry = j.buf[encChunkSize], true
		}
		chunk := j.buf[:min(n, encChunkSize)]
		counter := r.counter
		r.counter++
		open := func() {
			// Never in place: openChunk needs the ciphertext intact to
			// tell truncation from corruption.
			if j.work == nil {
				j.work = make([]byte, 0, ChunkSize)
			}
			j.out, j.err = openChunk(r.a, j.work[:0], chunk, counter, j.last)
			close(j.done)
		}
		if j.last && len(r.inflight) == 0 {
			open() // a one-chunk payload, or the tail: no goroutine
		} else {
			go open()
		}
		r.inflight = append(r.inflight, j)
	}
}

// window runs f(0) … f(n−1) on workers goroutines, the calling one
// included. Each takes the next index with one atomic add as soon as it is
// done with one: a sliding window with no goroutine start or wake-up per
// chunk.
func window(workers, n int, f func(int)) {
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range min(workers, n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// SealParallel is Seal with up to workers goroutines (0 means GOMAXPROCS).
func SealParallel(a cipher.AEAD, dst, pt []byte, workers int) []byte {
	workers = workerCount(workers)
	chunks := max(1, (len(pt)+ChunkSize-1)/ChunkSize)
	if workers == 1 || chunks == 1 {
		return Seal(a, dst, pt)
	}
	start := len(dst)
	dst = slices.Grow(dst, SealedSize(len(pt)))[:start+SealedSize(len(pt))]
	window(workers, chunks, func(i int) {
		in := pt[i*ChunkSize : min(len(pt), (i+1)*ChunkSize)]
		var n [12]byte
		nonce(&n, uint64(i), i == chunks-1)
		off := start + i*encChunkSize
		a.Seal(dst[off:off], n[:], in, nil)
	})
	return dst
}

// OpenParallel is Open with up to workers goroutines (0 means GOMAXPROCS).
func OpenParallel(a cipher.AEAD, dst, ct []byte, workers int) ([]byte, error) {
	workers = workerCount(workers)
	chunks := (len(ct) + encChunkSize - 1) / encChunkSize
	if workers == 1 || chunks <= 1 {
		return Open(a, dst, ct)
	}
	start := len(dst)
	_, size := PlaintextSize(int64(len(ct)))
	out := slices.Grow(dst, int(size))[:start+int(size)]
	errs := make([]error, chunks)
	window(workers, chunks, func(i int) {
		chunk := ct[i*encChunkSize : min(len(ct), (i+1)*encChunkSize)]
		off := start + i*ChunkSize
		_, errs[i] = openChunk(a, out[off:off], chunk, uint64(i), i == chunks-1)
	})
	// Report the first bad chunk, as the sequential reader would.
	for _, err := range errs {
		if err != nil {
			clear(out[start:])
			return nil, err
		}
	}
	return out, nil
}
