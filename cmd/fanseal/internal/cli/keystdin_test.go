package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysFromStdin: -R - and -i - read the keys from standard input,
// for fanseal's envelopes and age's files, when the payload is a file;
// they are refused, with the reason, when the payload comes from
// standard input too, or when two of them would read it.
func TestKeysFromStdin(t *testing.T) {
	dir, keys, pubs := setup(t, "x25519", 2)
	in := writeFile(t, dir, "plain", []byte("keys from a pipe"))
	keyText, err := os.ReadFile(keys[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, age := range []bool{false, true} {
		args := []string{"encrypt", "-R", "-", "-o", filepath.Join(dir, "env"), in}
		if age {
			args = append([]string{"encrypt", "--age"}, args[1:]...)
		}
		os.Remove(filepath.Join(dir, "env"))
		mustRun(t, "# from a pipe\n"+pubs[0]+"\n", args...)
		if got := mustRun(t, string(keyText), "decrypt", "-i", "-", filepath.Join(dir, "env")); got != "keys from a pipe" {
			t.Fatalf("age=%v: decrypt -i -: %q", age, got)
		}
		env, _ := os.ReadFile(filepath.Join(dir, "env"))
		mustFail(t, string(env), "-i -: standard input is already the input", "decrypt", "-i", "-")
		mustFail(t, string(env), "-i -: standard input is already the input", "decrypt", "-i", keys[1], "-i", "-", "-")
	}
	if out := mustRun(t, pubs[1]+"\n", "inspect", "-R", "-", filepath.Join(dir, "env")); !strings.Contains(out, "age file") || !strings.Contains(out, "the keys given cannot name them") {
		t.Fatalf("inspect -R - of an age file: %q", out)
	}
	mustFail(t, pubs[0]+"\n", "-R -: standard input is already the input (the payload)", "encrypt", "-R", "-")
	mustFail(t, pubs[0]+"\n", "-R -: standard input is already the input", "encrypt", "--age", "-R", "-", "-")
	mustFail(t, pubs[0]+"\n", "-R -: standard input is already read by -R -", "encrypt", "-R", "-", "-R", "-", in)
	mustFail(t, string(keyText), "-i -: standard input is already read by -i -", "decrypt", "-i", "-", "-i", "-", filepath.Join(dir, "env"))
	// A fault in keys from standard input names it.
	mustFail(t, "not a key\n", "standard input:1", "encrypt", "-R", "-", in)
}
