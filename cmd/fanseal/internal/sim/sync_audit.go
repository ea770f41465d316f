package sim

import (
	"bytes"
	"fmt"
	"sync"
	"time"
)

// The auditor: at the end of a run, a receiver that comes back with a
// fresh state (a new Keyring of every peer, no SessionCache) reads the
// views of the last auditTxs transactions, auditBatch at a time. On
// fanseal's side each batch is one Opener.OpenAll, whose key agreements
// (one per view under a forward-secret strategy) run in passes; the
// baseline opens one OpenBytes after another.
const (
	auditTxs   = 128
	auditBatch = 64
)

// auditLog keeps the views of the last auditTxs transactions: a bounded
// ring, so a soak holds no more at its end than after its first
// auditTxs transactions.
type auditLog struct {
	mu   sync.Mutex
	txs  []auditTx
	next int
}

type auditTx struct {
	seq   uint64
	views [][]byte
}

func (a *auditLog) keep(seq uint64, views [][]byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.txs) < auditTxs {
		a.txs = append(a.txs, auditTx{seq, views})
		return
	}
	a.txs[a.next] = auditTx{seq, views}
	a.next = (a.next + 1) % auditTxs
}

// viewAudit is what the auditor read.
type viewAudit struct {
	views int
	took  time.Duration
	err   error
}

// audit has the receiver's identity, with a fresh state, read every kept
// view, and checks that each opens to its transaction's view.
func (w *syncWorld) audit() viewAudit {
	w.audits.mu.Lock()
	txs := append([]auditTx(nil), w.audits.txs...)
	w.audits.mu.Unlock()
	var envs [][]byte
	var heads [][10]byte
	for _, tx := range txs {
		for v, env := range tx.views {
			envs = append(envs, env)
			heads = append(heads, viewHead(tx.seq, v))
		}
	}
	auditor := w.parts[receiverIndex]
	st, err := auditor.newState(w.epoch.Load())
	if err != nil {
		return viewAudit{err: err}
	}
	st.opener.Cache = nil // a reader coming back: no file key cached
	r := viewAudit{views: len(envs)}
	for start := 0; start < len(envs); start += auditBatch {
		batch := envs[start:min(start+auditBatch, len(envs))]
		t := time.Now()
		pts, errs := st.open(w.side, batch, auditor.id)
		d := time.Since(t)
		r.took += d
		w.rec.add("audit", d)
		for i, pt := range pts {
			head := heads[start+i]
			if r.err == nil && errs[i] != nil {
				r.err = fmt.Errorf("view %d of the audit: %w", start+i, errs[i])
			} else if r.err == nil && !bytes.HasPrefix(pt, head[:]) {
				r.err = fmt.Errorf("%w: view %d of the audit", errBadView, start+i)
			}
		}
	}
	return r
}
