package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
)

// TestEncryptAnonymousLimit: encrypt --anonymous refuses, with a message
// that says why and what to do, more recipients of one suite than decrypt
// would open (fanseal.DefaultMaxAnonymousTrials), and writes no output; at
// the limit it writes an envelope that decrypt opens.
func TestEncryptAnonymousLimit(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	var last *fanseal.Identity
	for range fanseal.DefaultMaxAnonymousTrials + 1 {
		id, err := fanseal.GenerateIdentity(fanseal.X25519)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, id.Recipient().String())
		last = id
	}
	all := writeFile(t, dir, "all.txt", []byte(strings.Join(lines, "\n")+"\n"))
	out := filepath.Join(dir, "out.fsl")
	mustFail(t, "secret", "1001 x25519 recipients; an anonymous envelope holds at most 1000 of one suite", "encrypt", "--anonymous", "-R", all, "-o", out)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused encrypt left %s behind: %v", out, err)
	}
	// 1 000: sealed, and decrypt opens it as the last recipient.
	some := writeFile(t, dir, "some.txt", []byte(strings.Join(lines[1:], "\n")+"\n"))
	mustRun(t, "secret", "encrypt", "--anonymous", "-R", some, "-o", out)
	key := writeFile(t, dir, "last.key", []byte(last.String()+"\n"))
	if got := mustRun(t, "", "decrypt", "-i", key, out); got != "secret" {
		t.Fatalf("decrypt = %q", got)
	}
}
