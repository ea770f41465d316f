package sim

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fanseal/fanseal/ledger"
)

func TestLedger(t *testing.T) {
	o := LedgerOptions{SignatureInterval: 20, Dir: t.TempDir()}
	base, fan := runBoth(t, Ledger(o), quick(false))
	for _, s := range []*SideResult{base, fan} {
		committed := s.Counter("committed")
		if committed == 0 || committed%20 != 0 || s.Counter("auditor: accepted") != committed ||
			s.Counter("transactions") != committed+s.Counter("rolled back") || s.Counter("rolled back") >= 20 ||
			s.Counter("rekeys") != 1 || s.Counter("signatures") != committed/20 {
			t.Fatalf("%s: counters %v", s.Side, s.Counters)
		}
		for _, name := range []string{"auditor: authentication failures", "auditor: entries of another transaction", "auditor: failed intervals", "auditor: after the rollback point", "auditor: torn frames"} {
			if s.Counter(name) != 0 {
				t.Fatalf("%s: %s = %d", s.Side, name, s.Counter(name))
			}
		}
	}
	if base.CPU == nil || fan.CPU == nil || base.CPU.Seconds <= 0 {
		t.Fatalf("no CPU attribution: %+v %+v", base.CPU, fan.CPU)
	}
	// Only the baseline builds AES-GCM contexts while it runs.
	if fan.CPU.ShareOf(ShareKeySetup) > 0.02 {
		t.Fatalf("key setup is %.1f %% of the retained side's CPU", 100*fan.CPU.ShareOf(ShareKeySetup))
	}
	// The files are in a directory of each side's own in the directory
	// given, and stay there.
	runs, _ := filepath.Glob(filepath.Join(o.Dir, "fanseal-sim-ledger-*", "ledger-*.bin"))
	if entries, _ := os.ReadDir(o.Dir); len(entries) != 2 || len(runs) != 2 {
		t.Fatalf("ledger directory holds %d entries and %d ledger files, want one each per side", len(entries), len(runs))
	}
}

func TestLedgerFaults(t *testing.T) {
	base, fan := runEnough(t, Ledger(LedgerOptions{SignatureInterval: 10}), quick(true), func(s *SideResult) bool {
		return s.Counter("committed") >= 30
	})
	for _, s := range []*SideResult{base, fan} {
		committed := s.Counter("committed")
		if committed < 30 {
			t.Fatalf("%s: %d transactions committed, too few for the faults", s.Side, committed)
		}
		want := map[string]int64{
			"auditor: authentication failures":        1,
			"auditor: entries of another transaction": 1,
			"auditor: failed intervals":               2,
			"auditor: after the rollback point":       3,
			"auditor: torn frames":                    1,
			"auditor: accepted":                       committed - 20,
		}
		for name, v := range want {
			if got := s.Counter(name); got != v {
				t.Fatalf("%s: %s = %d, want %d (%v)", s.Side, name, got, v, s.Counters)
			}
		}
	}
}

// TestFreshEncryptMatchesEncryptor checks that the baseline's entries are
// byte for byte those of ledger.Encryptor, so the auditor reads both.
func TestFreshEncryptMatchesEncryptor(t *testing.T) {
	key := bytes.Repeat([]byte{7}, ledger.KeySize)
	ss, err := ledger.NewSecrets(1, key)
	if err != nil {
		t.Fatal(err)
	}
	enc := ledger.NewEncryptor(ss)
	txid := ledger.TxID{View: 2, Seqno: 99}
	want, err := enc.Encrypt([]byte("prefix"), []byte("private"), []byte("public"), txid, ledger.WriteSet)
	if err != nil {
		t.Fatal(err)
	}
	got, err := freshEncrypt([]byte("prefix"), key, []byte("private"), []byte("public"), txid)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("fresh %x, retained %x (%v)", got, want, err)
	}
}

// TestAuditorRefusesAnotherNode checks that a ledger signed by another
// node's key has no accepted transaction.
func TestAuditorRefusesAnotherNode(t *testing.T) {
	w := runLedgerForAudit(t)
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	a, err := audit(w.path, w.keys, other)
	if err != nil {
		t.Fatal(err)
	}
	if a.accepted != 0 || a.badIntervals != w.sigs {
		t.Fatalf("another node's key: %+v", a)
	}
	// And a ledger read with another secret fails every entry.
	a, err = audit(w.path, []ledger.Secret{{From: 1, Key: make([]byte, ledger.KeySize)}}, w.node.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if a.accepted != 0 || a.authFailures != w.txs {
		t.Fatalf("wrong secret: %+v", a)
	}
}

// runLedgerForAudit writes a ledger of 50 transactions (no rekey) and
// returns its world, still open.
func runLedgerForAudit(t testing.TB) *ledgerWorld {
	cfg := &Config{Rounds: 2, Seed: 1}
	o := LedgerOptions{SignatureInterval: 10, Dir: t.TempDir()}
	o.defaults()
	wd, err := (&ledgerWorkload{o}).newWorld(t.Context(), Fanseal, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := wd.(*ledgerWorld)
	t.Cleanup(w.close)
	for range 50 {
		if err := w.transaction(t.Context(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w.audit.accepted != 50 || w.sigs != 5 {
		t.Fatalf("audit %+v, %d signatures", w.audit, w.sigs)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "ledger-fanseal.bin")); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSlowDisk: on a fake clock, writes wait for the disk's rate, and an
// idle disk saves up no more than slowDiskBurst of writing.
func TestSlowDisk(t *testing.T) {
	clock := time.Unix(1000, 0)
	var slept time.Duration
	var buf bytes.Buffer
	d := newSlowDisk(&buf, 1000) // 1000 bytes a second
	d.now = func() time.Time { return clock }
	d.sleep = func(s time.Duration) { slept += s; clock = clock.Add(s) }
	for range 10 {
		d.Write(make([]byte, 100))
	}
	// 1000 bytes at 1000 B/s take a second, less the 100 ms of burst.
	if want := 900 * time.Millisecond; slept != want || buf.Len() != 1000 {
		t.Fatalf("slept %v for 1000 bytes, want %v", slept, want)
	}
	clock = clock.Add(time.Hour) // idle: the burst again, no more
	slept = 0
	d.Write(make([]byte, 1000))
	if want := 900 * time.Millisecond; slept != want {
		t.Fatalf("after an hour idle, slept %v for 1000 bytes, want %v", slept, want)
	}
}

// TestLedgerOverload: a disk slower than the workers, and five times the
// capacity offered: the writer holds the workers back, the open loop
// sheds, and the auditor accepts every committed entry.
func TestLedgerOverload(t *testing.T) {
	cfg := Config{Duration: time.Second, Rounds: 2, Seed: 9, Only: []Side{Fanseal}, RateFactor: 5, Concurrency: 8}
	res, err := Run(context.Background(), Ledger(LedgerOptions{Workers: 2, SignatureInterval: 10, DiskRate: 1 << 20}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sides[0]
	if l := s.Load; l == nil || l.Shed == 0 || l.MaxInFlight > 8 || l.Completed != l.Admitted || int64(s.Ops) != l.Admitted {
		t.Fatalf("load %+v, %d written", s.Load, s.Ops)
	}
	if s.Counter("auditor: accepted") != s.Counter("committed") || s.Counter("committed") == 0 {
		t.Fatalf("%v", s.Counters)
	}
}
