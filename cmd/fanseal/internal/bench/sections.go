package bench

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/acs"
	"github.com/fanseal/fanseal/cmd/fanseal/internal/report"
	"github.com/fanseal/fanseal/kex"
	"github.com/fanseal/fanseal/ledger"
	"github.com/fanseal/fanseal/lthash"
)

var benchSuites = []fanseal.Suite{fanseal.P256, fanseal.X25519, fanseal.Secp256k1, fanseal.MLKEM768X25519}

// strategiesFor lists the strategies that apply to a suite: no shared or
// channel keys without Diffie-Hellman.
func strategiesFor(s fanseal.Suite) []fanseal.Strategy {
	if s.PostQuantum() {
		return []fanseal.Strategy{fanseal.Sequential, fanseal.Parallel, fanseal.Precomputed}
	}
	return fanseal.Strategies
}

func sealCells(cfg config) int {
	n := 0
	for _, s := range benchSuites {
		n += len(strategiesFor(s)) * len(cfg.counts)
	}
	return n
}

// openCells counts the open cells: cold and cache hit, per suite and count.
func openCells(cfg config) int { return 2 * len(benchSuites) * len(cfg.counts) }

// The cells of the other sections.
const (
	ledgerCells     = 2 * 2 // fresh and retained, 64 B and 1 KiB
	kexCells        = 2 * 2 // eager and lazy, two group sizes
	ltHashCells     = 2     // BLAKE2Xb and BLAKE3
	commitmentCells = 2     // scratch and incremental
	drainCells      = 2     // per-item and batched
)

// The legends of the envelope tables.
const (
	sealLegend = "legend: cell: one configuration, a row's timed round-robin; p50/p99: wall time of one Seal, the critical path; " +
		"cpu/seal: process CPU (getrusage, every goroutine) from a seal's start until the work it caused is done, so precomputed's background refill counts; " +
		"path x, cpu x: sequential's p50 and cpu/seal over this row's; precomputed: agreements made ahead by a Precomputer, one pool entry per recipient used per seal; " +
		"channel: a Keyring's cached static key per peer, no per-message forward secrecy"
	openLegend = "legend: cold: Open with the last recipient's identity, one key agreement; cache hit: an Opener whose SessionCache " +
		"already holds this envelope's file key (opened or sealed before), no key agreement; speedup: cold p50 over cache-hit p50"
)

// benchEnvelopes seals a 32-byte session key for N recipients with every
// strategy, and opens as the last recipient, cold and from the cache.
func benchEnvelopes(cfg config, w io.Writer) (seal, open []Latency, err error) {
	key := make([]byte, 32)
	most := 0
	for _, n := range cfg.counts {
		most = max(most, n)
	}
	for _, suite := range benchSuites {
		ids := make([]*fanseal.Identity, most)
		rs := make([]*fanseal.Recipient, most)
		for i := range ids {
			if ids[i], err = fanseal.GenerateIdentity(suite); err != nil {
				return nil, nil, err
			}
			rs[i] = ids[i].Recipient()
		}
		fmt.Fprintf(w, "\nseal a 32-byte key, suite %s\n%s\n", suite, sealLegend)
		fmt.Fprintf(w, "%10s  %-16s %12s %12s %12s %8s %8s\n", "recipients", "strategy", "p50", "p99", "cpu/seal", "path x", "cpu x")
		for _, n := range cfg.counts {
			sts := strategiesFor(suite)
			jobs, err := sealRow(cfg.budget, suite, sts, rs[:n], key)
			if err != nil {
				return nil, nil, err
			}
			var base Latency
			for i, st := range sts {
				c := cellOf(jobs[i])
				c.Suite, c.Strategy, c.Recipients = suite.String(), st.String(), n
				if st == fanseal.Sequential {
					base = c
				}
				cfg.add(&seal, c)
				fmt.Fprintf(w, "%10d  %-16s %12s %12s %12s %7.1fx %8s\n", n, st, report.Time(c.P50), report.Time(c.P99), cpuTime(c.CPU), base.P50/c.P50, ratio(base.CPU, c.CPU))
			}
		}
		fmt.Fprintf(w, "open as the last recipient, suite %s\n%s\n", suite, openLegend)
		fmt.Fprintf(w, "%10s  %12s %12s %12s\n", "recipients", "cold p50", "cache hit", "speedup")
		for _, n := range cfg.counts {
			env, err := fanseal.SealBytes(key, rs[:n]...)
			if err != nil {
				return nil, nil, err
			}
			o := &fanseal.Opener{Cache: fanseal.NewSessionCache(0, time.Hour)}
			coldJob := &job{f: func() error { _, err := fanseal.OpenBytes(env, ids[n-1]); return err }}
			hitJob := &job{f: func() error { _, err := o.OpenBytes(env, ids[n-1]); return err }}
			if err := measureRow(cfg.budget, coldJob, hitJob); err != nil {
				return nil, nil, err
			}
			cold, warm := cell(coldJob.d), cell(hitJob.d)
			cold.Suite, cold.Recipients, cold.Case = suite.String(), n, "cold"
			warm.Suite, warm.Recipients, warm.Case = suite.String(), n, "cache-hit"
			cfg.add(&open, cold)
			cfg.add(&open, warm)
			fmt.Fprintf(w, "%10d  %12s %12s %11.1fx\n", n, report.Time(cold.P50), report.Time(warm.P50), cold.P50/warm.P50)
		}
	}
	return seal, open, nil
}

// cpuTime formats a CPU time per call, or a dash where none was measured.
func cpuTime(ns float64) string {
	if ns <= 0 {
		return "–"
	}
	return report.Time(ns)
}

// ratio formats base/x as a speedup, or a dash where either is missing.
func ratio(base, x float64) string {
	if base <= 0 || x <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1fx", base/x)
}

// sealRow times the strategies sts of one row round-robin, sealing key
// for rs, and returns their jobs. What the strategies keep running (a
// Precomputer's workers) stops with the row.
func sealRow(budget time.Duration, suite fanseal.Suite, sts []fanseal.Strategy, rs []*fanseal.Recipient, key []byte) ([]*job, error) {
	jobs := make([]*job, len(sts))
	for i, st := range sts {
		j, stop, err := sealJob(suite, st, rs, key)
		if err != nil {
			return nil, fmt.Errorf("%s %s n=%d: %w", suite, st, len(rs), err)
		}
		defer stop()
		jobs[i] = j
	}
	if err := measureRow(budget, jobs...); err != nil {
		return nil, fmt.Errorf("%s n=%d: %w", suite, len(rs), err)
	}
	return jobs, nil
}

// sealJob returns the job that seals with one strategy, and what stops
// it. Precomputed and channel start warm. After every precomputed sample
// the pool is refilled, outside the timed seal and inside its CPU time.
func sealJob(suite fanseal.Suite, st fanseal.Strategy, rs []*fanseal.Recipient, key []byte) (*job, func(), error) {
	// The strategies as they are named: Sequential and Parallel with their
	// own ephemeral key per stanza (private envelopes share one, as
	// SharedParallel does).
	s := &fanseal.Sealer{Strategy: st, Identified: true}
	j := &job{f: func() error { _, err := s.SealBytes(key, rs...); return err }, cpu: true}
	switch st {
	case fanseal.Precomputed:
		p, err := fanseal.NewPrecomputer(fanseal.PrecomputeOptions{PoolSize: 1, Workers: runtime.GOMAXPROCS(0)}, rs...)
		if err != nil {
			return nil, nil, err
		}
		s.Precomputer = p
		refill := func() error { return p.WaitFull(context.Background()) }
		if err := refill(); err != nil {
			p.Close()
			return nil, nil, err
		}
		j.after = refill
		return j, func() { p.Close() }, nil
	case fanseal.Channel:
		me, err := fanseal.GenerateIdentity(suite)
		if err != nil {
			return nil, nil, err
		}
		if s.Keyring, err = fanseal.NewKeyring(me, 0); err != nil {
			return nil, nil, err
		}
		if err := s.Keyring.AddPeer(rs...); err != nil {
			return nil, nil, err
		}
	}
	return j, func() {}, nil
}

// The legends of the other tables.
const (
	ledgerLegend = "legend: fresh: aes.NewCipher and cipher.NewGCM on every call, as CCF did; retained: ledger.Encryptor's kept AEAD, " +
		"the same bytes out; speedup: fresh p50 over retained p50"
	kexLegend = "legend: eager: every key of every message parsed on receipt, as keep-core did; lazy: only this member's key, " +
		"parsed when its channel is derived, the same channels; speedup: eager p50 over lazy p50"
	ltHashLegend     = "legend: p50: adding one element, a 2048-byte XOF output added lane by lane"
	commitmentLegend = "legend: scratch: p0's commitments recomputed from the snapshot; incremental: updated from the groups that changed, " +
		"the same commitments; speedup: scratch p50 over incremental p50"
)

// benchLedger compares the retained AEAD with a new cipher per call.
func benchLedger(cfg config, w io.Writer) ([]Latency, error) {
	key := make([]byte, ledger.KeySize)
	secrets, err := ledger.NewSecrets(0, key)
	if err != nil {
		return nil, err
	}
	enc := ledger.NewEncryptor(secrets)
	txid := ledger.TxID{View: 2, Seqno: 1000}
	iv, _ := ledger.IV(txid, ledger.WriteSet)
	fmt.Fprintf(w, "\nledger: encrypt a write set\n%s\n%10s  %12s %12s %9s\n", ledgerLegend, "size", "fresh p50", "retained", "speedup")
	var out []Latency
	for _, size := range []int{64, 1024} {
		pt := make([]byte, size)
		dst := make([]byte, 0, size+64)
		fresh := &job{f: func() error {
			b, err := aes.NewCipher(key)
			if err != nil {
				return err
			}
			g, err := cipher.NewGCM(b)
			if err != nil {
				return err
			}
			g.Seal(dst[:0], iv[:], pt, nil)
			return nil
		}}
		kept := &job{f: func() error { _, err := enc.Encrypt(dst[:0], pt, nil, txid, ledger.WriteSet); return err }}
		if err := measureRow(cfg.budget, fresh, kept); err != nil {
			return nil, err
		}
		f, k := cell(fresh.d), cell(kept.d)
		f.Case, k.Case = fmt.Sprintf("fresh/size=%d", size), fmt.Sprintf("retained/size=%d", size)
		cfg.add(&out, f)
		cfg.add(&out, k)
		fmt.Fprintf(w, "%8d B  %12s %12s %8.1fx\n", size, report.Time(f.P50), report.Time(k.P50), f.P50/k.P50)
	}
	return out, nil
}

// benchKex times one member's receive side of a key exchange round: decode
// the n−1 peers' messages and derive the n−1 pairwise keys, parsing every
// key on receipt (eager, the old way) or only its own (lazy).
func benchKex(cfg config, w io.Writer) ([]Latency, error) {
	sizes := []int{64, 100}
	if !cfg.heavy {
		sizes = []int{16, 32}
	}
	fmt.Fprintf(w, "\nkey exchange round, one member's receive side (secp256k1)\n%s\n%10s  %12s %12s %9s\n", kexLegend, "members", "eager p50", "lazy p50", "speedup")
	var out []Latency
	for _, n := range sizes {
		g := kex.Group{Suite: kex.Secp256k1, Size: n, SessionID: "bench"}
		self, err := kex.NewRound(g, 1)
		if err != nil {
			return nil, err
		}
		var wires [][]byte
		for i := 2; i <= n; i++ {
			r, err := kex.NewRound(g, uint32(i))
			if err != nil {
				return nil, err
			}
			wires = append(wires, r.Message().Marshal())
		}
		receive := func(eager bool) func() error {
			return func() error {
				for _, wire := range wires {
					m, err := kex.Unmarshal(wire, g)
					if err != nil {
						return err
					}
					if eager {
						for i := uint32(1); int(i) <= n; i++ {
							if k, ok := m.PublicKey(i); ok {
								if _, err := secp256k1.ParsePubKey(k); err != nil {
									return err
								}
							}
						}
					}
					if _, err := self.Channel(m); err != nil {
						return err
					}
				}
				return nil
			}
		}
		eager, lazy := &job{f: receive(true)}, &job{f: receive(false)}
		if err := measureRow(cfg.budget, eager, lazy); err != nil {
			return nil, err
		}
		e, l := cell(eager.d), cell(lazy.d)
		e.Case, l.Case, e.Recipients, l.Recipients = "eager", "lazy", n, n
		cfg.add(&out, e)
		cfg.add(&out, l)
		fmt.Fprintf(w, "%10d  %12s %12s %8.1fx\n", n, report.Time(e.P50), report.Time(l.P50), e.P50/l.P50)
	}
	return out, nil
}

// benchCommitments times LtHash16 additions and per-participant ACS
// commitments, from scratch and incrementally after 1% of groups changed.
func benchCommitments(cfg config, w io.Writer) (adds, commits []Latency, err error) {
	fmt.Fprintf(w, "\nLtHash16: add one element\n%s\n%10s  %12s\n", ltHashLegend, "xof", "p50")
	elem := []byte("contract-0000000000000001\x02")
	for _, x := range []lthash.XOF{lthash.BLAKE2Xb, lthash.BLAKE3} {
		h, _ := lthash.New(x)
		d, err := measure(cfg.budget, func() error { h.Add(elem); return nil })
		if err != nil {
			return nil, nil, err
		}
		c := cell(d)
		c.Case = x.String()
		cfg.add(&adds, c)
		fmt.Fprintf(w, "%10s  %12s\n", x, report.Time(c.P50))
	}
	groups, participants := 10000, 50
	if !cfg.heavy {
		groups = 1000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	hosting := acs.Hosting{}
	var parties []acs.PartyID
	for i := range participants {
		for j := range 2 {
			p := acs.PartyID(fmt.Sprintf("party-%d-%d", i, j))
			hosting[p] = acs.ParticipantID(fmt.Sprintf("p%d", i))
			parties = append(parties, p)
		}
	}
	run, _ := acs.NewRunning(lthash.BLAKE3)
	var all []acs.Contract
	for g := range groups {
		st, _ := acs.NewStakeholders(parties[rng.IntN(2)], parties[rng.IntN(len(parties))], parties[rng.IntN(len(parties))])
		all = append(all, acs.Contract{ID: fmt.Appendf(nil, "c%d", g), Stakeholders: st})
	}
	if err := run.Update(all, nil); err != nil {
		return nil, nil, err
	}
	s0 := run.Snapshot()
	changed := all[:groups/100]
	bump := make([]acs.Contract, len(changed))
	for i, c := range changed {
		c.Reassignment++
		bump[i] = c
	}
	run.Update(bump, nil)
	s1 := run.Snapshot()
	run.Update(nil, bump)
	s2 := run.Snapshot()
	scratch := &job{f: func() error { _, err := acs.Scratch(s1, hosting, "p0", 0); return err }}
	com, err := acs.NewCommitter("p0", hosting, lthash.BLAKE3)
	if err != nil {
		return nil, nil, err
	}
	com.Apply(s0)
	flip := false
	inc := &job{f: func() error {
		s := s1
		if flip {
			s = s2
		}
		flip = !flip
		if err := com.Apply(s); err != nil {
			return err
		}
		com.Commitments()
		return nil
	}}
	if err := measureRow(cfg.budget, scratch, inc); err != nil {
		return nil, nil, err
	}
	sc, ic := cell(scratch.d), cell(inc.d)
	sc.Case, ic.Case = fmt.Sprintf("scratch/groups=%d", groups), fmt.Sprintf("incremental/groups=%d", groups)
	cfg.add(&commits, sc)
	cfg.add(&commits, ic)
	fmt.Fprintf(w, "\nACS commitments for %d participants, %d groups, 1%% changed\n%s\n%12s %12s %9s\n%12s %12s %8.1fx\n",
		participants, groups, commitmentLegend, "scratch p50", "incremental", "speedup", report.Time(sc.P50), report.Time(ic.P50), sc.P50/ic.P50)
	return adds, commits, nil
}
