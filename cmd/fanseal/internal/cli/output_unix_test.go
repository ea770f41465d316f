//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// entries returns the names in dir, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// isType reports whether name (not followed) is of type typ.
func isType(t *testing.T, name string, typ os.FileMode) bool {
	t.Helper()
	fi, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Type() == typ
}

// readFIFO makes the FIFO name and returns a function that returns
// everything written to it.
func readFIFO(t *testing.T, name string) func() []byte {
	t.Helper()
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(name) // blocks until the writer opens it
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	return func() []byte {
		select {
		case b := <-got:
			return b
		case <-time.After(20 * time.Second):
			t.Fatal("nothing came through the FIFO")
			return nil
		}
	}
}

// outputCommand is one command with one output flag, run with the output
// at a given path; check tells whether what the path received is that
// command's output.
type outputCommand struct {
	name  string
	args  func(out string) []string
	stdin string
	check func(b []byte) bool
}

func outputCommands(t *testing.T) []outputCommand {
	_, keys, pubs := setup(t, "x25519", 1)
	payload := strings.Repeat("a secret payload ", 1000)
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	isEnvelope := func(b []byte) bool { return bytes.HasPrefix(b, []byte(env[:4])) && len(b) == len(env) }
	isJSON := func(b []byte) bool { return json.Valid(b) && bytes.HasPrefix(b, []byte("{")) }
	isPprof := func(b []byte) bool { return len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b }
	cmds := []outputCommand{
		{"encrypt -o", func(o string) []string { return []string{"encrypt", "-r", pubs[0], "-o", o} }, payload, isEnvelope},
		{"decrypt -o", func(o string) []string { return []string{"decrypt", "-i", keys[0], "-o", o} }, env, func(b []byte) bool { return string(b) == payload }},
		{"sim --json", func(o string) []string {
			return []string{"sim", "dkg", "--quick", "--members", "3", "--duration", "100ms", "--rounds", "1", "--json", o}
		}, "", isJSON},
		{"sim --plot", func(o string) []string {
			return []string{"sim", "dkg", "--quick", "--members", "3", "--duration", "100ms", "--rounds", "1", "--plot", o + ".svg"}
		}, "", func(b []byte) bool { return bytes.Contains(b, []byte("<svg")) }},
		{"sim --cpuprofile", func(o string) []string {
			return []string{"sim", "dkg", "--quick", "--members", "3", "--duration", "100ms", "--rounds", "1", "--cpuprofile", o}
		}, "", isPprof},
	}
	if !testing.Short() {
		// bench's other output flags go through the same startOutputs:
		// TestBenchOutputs runs them once each.
		cmds = append(cmds, outputCommand{"bench --json", func(o string) []string {
			return []string{"bench", "--quick", "--recipients", "0", "--json", o}
		}, "", isJSON})
	}
	return cmds
}

// plotName is the name a command writes for output path o: --plot takes
// a name with the image's extension.
func plotName(c outputCommand, o string) string {
	if strings.HasSuffix(c.name, "--plot") {
		args := c.args(o)
		return args[len(args)-1]
	}
	return o
}

// TestOutputRule runs every output flag against each kind of path the
// rule names (outputRule).
func TestOutputRule(t *testing.T) {
	for _, c := range outputCommands(t) {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()

			// A new file appears, complete, and nothing else is left.
			out := filepath.Join(dir, "new")
			mustRun(t, c.stdin, c.args(out)...)
			name := plotName(c, out)
			if b, err := os.ReadFile(name); err != nil || !c.check(b) {
				t.Fatalf("new file: %v (%d bytes)", err, len(b))
			}
			if got := entries(t, dir); len(got) != 1 {
				t.Fatalf("directory holds %v", got)
			}

			// An existing file is replaced and keeps its mode.
			os.WriteFile(name, []byte("old"), 0o640)
			os.Chmod(name, 0o640)
			mustRun(t, c.stdin, c.args(out)...)
			if b, _ := os.ReadFile(name); !c.check(b) || mode(t, name) != 0o640 {
				t.Fatalf("replaced file: mode %#o, %d bytes", mode(t, name), len(b))
			}

			// A symbolic link to a regular file: the file is replaced, the
			// link stays.
			target := filepath.Join(dir, "target")
			os.WriteFile(plotName(c, target), []byte("old"), 0o600)
			link := filepath.Join(dir, "link")
			if err := os.Symlink(filepath.Base(plotName(c, target)), plotName(c, link)); err != nil {
				t.Fatal(err)
			}
			mustRun(t, c.stdin, c.args(link)...)
			if !isType(t, plotName(c, link), os.ModeSymlink) {
				t.Fatal("the symbolic link was replaced")
			}
			if b, _ := os.ReadFile(plotName(c, target)); !c.check(b) || mode(t, plotName(c, target)) != 0o600 {
				t.Fatalf("link target: mode %#o, %d bytes", mode(t, plotName(c, target)), len(b))
			}

			// A symbolic link to a device is written through, and neither
			// is replaced. (The test never writes to /dev/null itself: code
			// that replaced it would replace the machine's.)
			null := filepath.Join(dir, "null")
			if err := os.Symlink(os.DevNull, plotName(c, null)); err != nil {
				t.Fatal(err)
			}
			mustRun(t, c.stdin, c.args(null)...)
			if !isType(t, plotName(c, null), os.ModeSymlink) {
				t.Fatal("the link to /dev/null was replaced")
			}
			// A device itself: a copy of /dev/null (1, 3), where this
			// process may make one.
			dev := filepath.Join(dir, "dev")
			if err := syscall.Mknod(plotName(c, dev), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
				mustRun(t, c.stdin, c.args(dev)...)
				if !isType(t, plotName(c, dev), os.ModeDevice|os.ModeCharDevice) {
					t.Fatal("the device was replaced")
				}
			}

			// A FIFO is written in place.
			fifo := filepath.Join(t.TempDir(), "fifo")
			read := readFIFO(t, plotName(c, fifo))
			mustRun(t, c.stdin, c.args(fifo)...)
			if b := read(); !c.check(b) {
				t.Fatalf("FIFO received %d bytes", len(b))
			}
			if !isType(t, plotName(c, fifo), os.ModeNamedPipe) {
				t.Fatal("the FIFO was replaced")
			}

			// A path that cannot be written is refused before the work,
			// with the name: nothing was printed, so nothing ran (bench
			// prints its tables as it goes, sim its report at the end).
			for _, bad := range []string{filepath.Join(dir, "no", "such", "dir", "x"), dir} {
				if strings.HasSuffix(c.name, "--plot") && bad == dir {
					continue // a directory named x.svg does not exist
				}
				status, stdout, stderr := cli(t, c.stdin, c.args(bad)...)
				if status != 1 || stdout != "" || !strings.Contains(stderr, plotName(c, bad)) {
					t.Fatalf("%s: status %d, stdout %d bytes, stderr %q", bad, status, len(stdout), stderr)
				}
				if strings.Contains(stderr, ".tmp") {
					t.Fatalf("the error names a temporary file: %s", stderr)
				}
			}
		})
	}
}

// TestOutputStdout: "-" is standard output, for every output flag; the
// human-readable report then goes to standard error.
func TestOutputStdout(t *testing.T) {
	for _, c := range outputCommands(t) {
		if strings.HasSuffix(c.name, "--plot") {
			continue // a plot names its format by extension
		}
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			status, stdout, stderr := cli(t, c.stdin, c.args("-")...)
			if status != 0 || !c.check([]byte(stdout)) {
				t.Fatalf("status %d, stdout %.60q, stderr %.200q", status, stdout, stderr)
			}
			if _, err := os.Stat("-"); err == nil {
				t.Fatal("a file named - was created")
			}
		})
	}
	mustFail(t, "", "both write to standard output", "sim", "dkg", "--quick", "--json", "-", "--cpuprofile", "-")
	dir := t.TempDir()
	same := filepath.Join(dir, "x")
	mustFail(t, "", "name the same file", "sim", "dkg", "--quick", "--json", same, "--cpuprofile", same)
}

// TestBenchOutputs: bench's --plot, --cpuprofile and --memprofile files
// are complete, and a path that cannot be written is refused before the
// run.
func TestBenchOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes a few seconds")
	}
	dir := t.TempDir()
	png, cpu, mem := filepath.Join(dir, "b.png"), filepath.Join(dir, "cpu"), filepath.Join(dir, "mem")
	mustRun(t, "", "bench", "--quick", "--recipients", "0", "--plot", png, "--cpuprofile", cpu, "--memprofile", mem)
	for _, f := range []string{png, cpu, mem} {
		b, _ := os.ReadFile(f)
		if !bytes.HasPrefix(b, []byte("\x89PNG")) && !(len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b) {
			t.Errorf("%s: %d bytes, not a PNG or a profile", filepath.Base(f), len(b))
		}
	}
	for _, flag := range []string{"--plot", "--cpuprofile", "--memprofile"} {
		bad := filepath.Join(dir, "missing", "x.svg")
		status, stdout, stderr := cli(t, "", "bench", "--quick", "--recipients", "0", flag, bad)
		if status != 1 || stdout != "" || !strings.Contains(stderr, bad) {
			t.Errorf("%s %s: status %d, stdout %d bytes (the run started), stderr %q", flag, bad, status, len(stdout), stderr)
		}
	}
}

// TestKeygenNeverReplaces: an identity file is never replaced, not even
// by keygen; a device still works.
func TestKeygenNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "alice.key")
	os.WriteFile(key, []byte("AGE-SECRET-KEY-1...\n"), 0o600)
	mustFail(t, "", "alice.key exists", "keygen", "-o", key)
	if b, _ := os.ReadFile(key); string(b) != "AGE-SECRET-KEY-1...\n" {
		t.Fatalf("the identity file was changed: %q", b)
	}
	mustRun(t, "", "keygen", "-o", os.DevNull)
	out := mustRun(t, "", "keygen", "-o", "-")
	if !strings.Contains(out, "\nAGE-SECRET-KEY-1") || strings.Count(out, "age1") != 1 {
		t.Fatalf("keygen -o - printed %q", out)
	}
}

// TestFailedDecryptKeepsTarget: a decrypt that fails leaves the file it
// would have replaced as it was, and nothing beside it.
func TestFailedDecryptKeepsTarget(t *testing.T) {
	dir, keys, pubs := setup(t, "x25519", 1)
	env := []byte(mustRun(t, strings.Repeat("x", 200000), "encrypt", "-r", pubs[0]))
	env[len(env)-1] ^= 1
	out := filepath.Join(dir, "out")
	os.WriteFile(out, []byte("keep me"), 0o644)
	before := entries(t, dir)
	mustFail(t, string(env), "tampered", "decrypt", "-i", keys[0], "-o", out)
	if b, _ := os.ReadFile(out); string(b) != "keep me" {
		t.Fatalf("target holds %q", b)
	}
	if got := entries(t, dir); !slices.Equal(got, before) {
		t.Fatalf("directory holds %v, held %v", got, before)
	}
}

// TestNamedFallback: where unnamed files are off, the named temporary file
// is readable by its owner only and Abort removes it.
func TestNamedFallback(t *testing.T) {
	old := unnamedOff
	unnamedOff = "1"
	defer func() { unnamedOff = old }()
	dir := t.TempDir()
	o, err := createOutput(filepath.Join(dir, "x"), nil, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if o.tmp == "" || mode(t, filepath.Join(dir, o.tmp)) != 0o600 {
		t.Fatalf("temporary file %q", o.tmp)
	}
	io.WriteString(o, "partial")
	o.Abort()
	if got := entries(t, dir); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
	o, _ = createOutput(filepath.Join(dir, "x"), nil, 0o666)
	io.WriteString(o, "whole")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x")); string(b) != "whole" || !slices.Equal(entries(t, dir), []string{"x"}) {
		t.Fatalf("committed %q, directory %v", b, entries(t, dir))
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestCommitWithNamesOnce: a write that fails under CommitWith names the
// output once, not "writing x.json: writing x.json: ...".
func TestCommitWithNamesOnce(t *testing.T) {
	o := &Output{Writer: failingWriter{}, name: "x.json"}
	err := o.CommitWith(func(w io.Writer) error { _, err := w.Write([]byte("{}")); return err })
	if err == nil || err.Error() != "writing x.json: "+syscall.ENOSPC.Error() {
		t.Fatalf("got %v", err)
	}
}

// TestOutputSyncOnlyWhereNeeded: a new output file made from an input
// file that is still there is committed without an fsync (a crash right
// after costs nothing that cannot be made again); a replaced file, an
// output made from standard input, and a new secret key are flushed
// before they take their name.
func TestOutputSyncOnlyWhereNeeded(t *testing.T) {
	dir, _, pubs := setup(t, "x25519", 1)
	in := writeFile(t, dir, "plain", []byte("x"))
	syncs := func(stdin string, args ...string) int64 {
		t.Helper()
		before := outputSyncs.Load()
		mustRun(t, stdin, args...)
		return outputSyncs.Load() - before
	}
	out := filepath.Join(dir, "out.fsl")
	if n := syncs("", "encrypt", "-r", pubs[0], "-o", out, in); n != 0 {
		t.Errorf("a new output from an input file: %d fsyncs, want 0", n)
	}
	if n := syncs("", "encrypt", "-r", pubs[0], "-o", out, in); n != 1 {
		t.Errorf("a replaced output: %d fsyncs, want 1", n)
	}
	if n := syncs("x", "encrypt", "-r", pubs[0], "-o", filepath.Join(dir, "stdin.fsl")); n != 1 {
		t.Errorf("a new output from standard input: %d fsyncs, want 1", n)
	}
	if n := syncs("", "keygen", "-o", filepath.Join(dir, "new.key")); n != 1 {
		t.Errorf("a new secret key: %d fsyncs, want 1", n)
	}
}
