package sim

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"

	"github.com/fanseal/fanseal/ledger"
)

// FuzzAudit feeds the auditor arbitrary ledger files: it must never panic
// and never accept a transaction, since no signature can verify under a
// key the file's author does not have.
func FuzzAudit(f *testing.F) {
	w := runLedgerForAudit(f)
	good, err := os.ReadFile(w.path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good[:min(len(good), 600)])
	f.Add([]byte{0, 0, 0, 12, kindTx, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2})
	f.Add([]byte{0, 0, 0, 141, kindSignature})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	secrets := []ledger.Secret{{From: 1, Key: make([]byte, ledger.KeySize)}}
	node := make(ed25519.PublicKey, ed25519.PublicKeySize)
	path := filepath.Join(f.TempDir(), "ledger.bin")
	f.Fuzz(func(t *testing.T, file []byte) {
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := audit(path, secrets, node)
		if err != nil {
			t.Fatal(err)
		}
		if a.accepted != 0 {
			t.Fatalf("accepted %d transactions of a forged file", a.accepted)
		}
	})
}
