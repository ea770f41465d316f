package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
)

// TestEncryptPrivateNoTrialLimit: encrypt writes a private envelope for
// more recipients of one suite than an anonymous one could hold
// (fanseal.DefaultMaxAnonymousTrials), with or without --anonymous, which
// decrypt opens as the last recipient; inspect and --anonymous with
// --identified say what they are.
func TestEncryptPrivateNoTrialLimit(t *testing.T) {
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
	key := writeFile(t, dir, "last.key", []byte(last.String()+"\n"))
	for _, flags := range [][]string{nil, {"--anonymous"}} {
		mustRun(t, "secret", append(append([]string{"encrypt"}, flags...), "-R", all, "-o", out)...)
		if got := mustRun(t, "", "decrypt", "-i", key, out); got != "secret" {
			t.Fatalf("%v: decrypt = %q", flags, got)
		}
		if got := mustRun(t, "", "inspect", out); !strings.Contains(got, "recipients:  1001 (private") {
			t.Fatalf("%v: inspect: %s", flags, got)
		}
	}
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	mustFail(t, "secret", "--anonymous and --identified", "encrypt", "--anonymous", "--identified", "-R", all, "-o", out)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused encrypt left %s behind: %v", out, err)
	}
}
