package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// These tests are the attacks of a review of the output rule, each run
// against the built command as a separate process: links anywhere in the
// path, files planted in sticky directories, inputs that arrive as
// descriptors, and descriptors fanseal holds itself.

// asNobody makes cmd run as the user nobody (65534).
func asNobody(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
}

// needRoot skips a test that plays another user.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to play another user")
	}
}

// stickyDir returns a new world-writable sticky directory, as /tmp is.
func stickyDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return d
}

// plant makes name a symbolic link to target owned by nobody, as another
// user in a sticky directory would leave it.
func plant(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(name, 65534, 65534); err != nil {
		t.Fatal(err)
	}
}

// TestLinksAnywhereInPath: another user's link in a sticky directory is
// refused wherever it stands in the path (a directory on the way, or the
// second link of a chain), and a directory swapped for a link while the
// command works changes nothing: the output lands where the path led at
// the start.
func TestLinksAnywhereInPath(t *testing.T) {
	needRoot(t)
	bin := binary(t)
	_, keys, pubs := setup(t, "x25519", 1)
	payload := strings.Repeat("secret ", 60000)
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	victimDir := t.TempDir()
	victim := filepath.Join(victimDir, "shadow")
	os.WriteFile(victim, []byte("root:secret\n"), 0o640)
	unchanged := func(what string) {
		t.Helper()
		if b, _ := os.ReadFile(victim); string(b) != "root:secret\n" {
			t.Fatalf("%s: the victim holds %d bytes", what, len(b))
		}
	}
	sticky := stickyDir(t)

	plant(t, victimDir, filepath.Join(sticky, "evd"))
	status, stderr := binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", filepath.Join(sticky, "evd", "shadow"))
	if status != 1 || !strings.Contains(stderr, "protected_symlinks") {
		t.Fatalf("another user's link as a directory: status %d, %q", status, stderr)
	}
	unchanged("a link as a directory")

	plant(t, victim, filepath.Join(sticky, "evl"))
	os.Symlink(filepath.Join(sticky, "evl"), filepath.Join(sticky, "mine"))
	status, stderr = binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", filepath.Join(sticky, "mine"))
	if status != 1 || !strings.Contains(stderr, "protected_symlinks") {
		t.Fatalf("a chain through another user's link: status %d, %q", status, stderr)
	}
	unchanged("a chain of links")

	// A directory of nobody's, swapped for a link to the victim's while
	// the command works.
	dir := filepath.Join(sticky, "work")
	os.Mkdir(dir, 0o777)
	os.Chown(dir, 65534, 65534)
	os.WriteFile(filepath.Join(dir, "shadow"), nil, 0o666)
	os.Chown(filepath.Join(dir, "shadow"), 0, 0)
	cmd := commandFor(t, bin, "decrypt", "-i", keys[0], "-o", filepath.Join(dir, "shadow"))
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	rest := startHalfFed(t, cmd, env)
	awaitPending(t, cmd.Process.Pid, dir)
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	plant(t, victimDir, dir)
	rest()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	unchanged("a directory swapped for a link")
	if b, _ := os.ReadFile(filepath.Join(dir+".old", "shadow")); string(b) != payload {
		t.Fatalf("the output is not where the path led at the start (%d bytes there)", len(b))
	}
}

// TestPlantedFiles: in a sticky directory a file that neither the caller
// nor the directory's owner owns is not replaced (root's output would go
// to nobody's file), nor one the caller may not write, and both are
// refused before any work.
func TestPlantedFiles(t *testing.T) {
	needRoot(t)
	bin := binary(t)
	_, _, pubs := setup(t, "x25519", 1)
	sticky := stickyDir(t)
	planted := filepath.Join(sticky, "pre.txt")
	os.WriteFile(planted, nil, 0o666)
	os.Chown(planted, 65534, 65534)
	status, stderr := binaryRun(t, bin, "payload", nil, nil, "encrypt", "-r", pubs[0], "-o", planted)
	if status != 1 || !strings.Contains(stderr, "protected_regular") {
		t.Fatalf("nobody's file in a sticky directory: status %d, %q", status, stderr)
	}
	if b, _ := os.ReadFile(planted); len(b) != 0 {
		t.Fatal("nobody's file received root's output")
	}

	// nobody, in a directory anyone may write, against root's read-only
	// file: refused at once, as the shell's > is.
	open := t.TempDir()
	os.Chmod(filepath.Dir(open), 0o711) // the test's own directory, for nobody to pass
	os.Chmod(open, 0o777)
	ro := filepath.Join(open, "ro.txt")
	os.WriteFile(ro, []byte("root's"), 0o444)
	exe := filepath.Join(open, "fanseal")
	if b, err := os.ReadFile(bin); err != nil || os.WriteFile(exe, b, 0o755) != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "encrypt", "-r", pubs[0], "-o", ro)
	asNobody(cmd)
	cmd.Stdin = strings.NewReader("payload")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot write") {
		t.Fatalf("nobody over root's read-only file: %v: %s", err, out)
	}
	if b, _ := os.ReadFile(ro); string(b) != "root's" {
		t.Fatal("root's read-only file was replaced")
	}
}

// TestInputByDescriptor: an output that is the input the command reads
// from standard input or a descriptor is refused before any work.
func TestInputByDescriptor(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	plain := filepath.Join(dir, "X")
	os.WriteFile(plain, []byte("the plaintext"), 0o644)
	envFile := filepath.Join(dir, "env")
	mustRun(t, "", "encrypt", "-r", pubs[0], "-o", envFile, plain)
	keyBefore, _ := os.ReadFile(keys[0])
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{plain, []string{"encrypt", "-r", pubs[0], "-o", plain}},
		{plain, []string{"encrypt", "-r", pubs[0], "-o", plain, "/dev/fd/0"}},
		{plain, []string{"encrypt", "-r", pubs[0], "-o", plain, "/dev/stdin"}},
		{keys[0], []string{"decrypt", "-i", "-", "-o", keys[0], envFile}},
	} {
		f, err := os.Open(c.stdin)
		if err != nil {
			t.Fatal(err)
		}
		cmd := commandFor(t, bin, c.args...)
		cmd.Stdin = f
		out, err := cmd.CombinedOutput()
		f.Close()
		if err == nil || !strings.Contains(string(out), "input and output file are the same") {
			t.Errorf("fanseal %v < %s: %v: %s", c.args, filepath.Base(c.stdin), err, out)
		}
	}
	if b, _ := os.ReadFile(plain); string(b) != "the plaintext" {
		t.Errorf("the plaintext was replaced")
	}
	if b, _ := os.ReadFile(keys[0]); !bytes.Equal(b, keyBefore) {
		t.Errorf("the key file was replaced")
	}
}

// TestOtherNamesOfStdout: a link to /dev/stdout, and /proc/thread-self's
// name of descriptor 1, append to the shell's ">> log" as "-" does.
func TestOtherNamesOfStdout(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, "the payload\n", "encrypt", "-r", pubs[0])
	sl := filepath.Join(dir, "sl")
	os.Symlink("/dev/stdout", sl)
	ml := filepath.Join(dir, "ml")
	os.Symlink(filepath.Join(dir, "log"), ml)
	for _, name := range []string{sl, "/proc/thread-self/fd/1", ml} {
		log := filepath.Join(dir, "log")
		os.WriteFile(log, []byte("earlier\n"), 0o644)
		f, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
		status, stderr := binaryRun(t, bin, env, f, nil, "decrypt", "-i", keys[0], "-o", name)
		f.Close()
		if b, _ := os.ReadFile(log); status != 0 || string(b) != "earlier\nthe payload\n" {
			t.Errorf("-o %s >> log: status %d (%s), the log holds %q", name, status, stderr, b)
		}
	}
}

// TestOwnDescriptorsRefused: /dev/fd/N names only descriptors the command
// was given for writing: one fanseal opened itself, or one open for
// reading only, is refused before any work.
func TestOwnDescriptorsRefused(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	sim := []string{"sim", "dkg", "--quick", "--members", "3", "--duration", "100ms", "--rounds", "1"}
	status, stderr := binaryRun(t, bin, "", nil, nil, append(sim, "--json", filepath.Join(dir, "a.json"), "--cpuprofile", "/dev/fd/7")...)
	if status != 1 || !strings.Contains(stderr, "/dev/fd/7") {
		t.Fatalf("a descriptor fanseal did not get: status %d, %q", status, stderr)
	}
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("keep"), 0o644)
	ro, _ := os.Open(plain)
	defer ro.Close()
	cmd := commandFor(t, bin, append(sim, "--json", "/dev/fd/3")...)
	cmd.ExtraFiles = []*os.File{ro}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "reading only") || strings.Contains(string(out), "dkg round") {
		t.Fatalf("a read-only descriptor: %v: %s", err, out)
	}
}

// TestSameFileMore: two links to one file that does not exist yet, a file
// and a link to it that does not exist yet, and a descriptor open on the
// other flag's file all name one file.
func TestSameFileMore(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	os.Symlink("tgt", filepath.Join(dir, "l1"))
	os.Symlink("tgt", filepath.Join(dir, "l2"))
	os.Symlink("a.json", filepath.Join(dir, "ln2"))
	sim := []string{"sim", "dkg", "--quick", "--members", "3", "--duration", "100ms", "--rounds", "1"}
	for _, pair := range [][2]string{{"l1", "l2"}, {"a.json", "ln2"}} {
		status, stderr := binaryRun(t, bin, "", nil, nil, append(sim, "--json", filepath.Join(dir, pair[0]), "--cpuprofile", filepath.Join(dir, pair[1]))...)
		if status != 1 || !strings.Contains(stderr, "name the same file") {
			t.Errorf("%s and %s: status %d, %q", pair[0], pair[1], status, stderr)
		}
	}
	b := filepath.Join(dir, "b.out")
	os.WriteFile(b, nil, 0o644)
	f, _ := os.OpenFile(b, os.O_WRONLY|os.O_APPEND, 0)
	defer f.Close()
	cmd := commandFor(t, bin, append(sim, "--json", "/dev/fd/3", "--cpuprofile", b)...)
	cmd.ExtraFiles = []*os.File{f}
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "name the same file") {
		t.Errorf("a descriptor on the other's file: %v: %s", err, out)
	}
}

// TestWriteErrorsFail: a writer that drops errors (runtime/pprof's, behind
// bench --cpuprofile) still fails the command when its output cannot be
// written (/dev/full).
func TestWriteErrorsFail(t *testing.T) {
	bin := binary(t)
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	status, stderr := binaryRun(t, bin, "", nil, nil, "bench", "--quick", "--recipients", "0", "--cpuprofile", "/dev/full")
	if status != 1 || !strings.Contains(stderr, "no space left") {
		t.Fatalf("a CPU profile to /dev/full: status %d, %q", status, stderr)
	}
}

// TestLinkToNothingGetsUmaskMode: a file created through a link to
// nothing gets the mode a new file gets, and appears only complete.
func TestLinkToNothingGetsUmaskMode(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, "payload", "encrypt", "-r", pubs[0])
	os.Symlink("newfile", filepath.Join(dir, "dl"))
	old := syscall.Umask(0o022)
	status, stderr := binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", filepath.Join(dir, "dl"))
	syscall.Umask(old)
	if status != 0 {
		t.Fatal(stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "newfile")); string(b) != "payload" || mode(t, filepath.Join(dir, "newfile")) != 0o644 {
		t.Fatalf("newfile: %q, mode %#o", b, mode(t, filepath.Join(dir, "newfile")))
	}
}

// TestLinkStagedBesideTarget: the output for a file reached through a link
// is staged beside that file, not in $TMPDIR.
func TestLinkStagedBesideTarget(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, "payload", "encrypt", "-r", pubs[0])
	os.WriteFile(filepath.Join(dir, "target"), []byte("old"), 0o644)
	os.Symlink("target", filepath.Join(dir, "vl"))
	cmd := commandFor(t, bin, "decrypt", "-i", keys[0], "-o", filepath.Join(dir, "vl"))
	cmd.Env = append(os.Environ(), "TMPDIR=/nonexistent")
	cmd.Stdin = strings.NewReader(env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target")); string(b) != "payload" {
		t.Fatalf("target holds %q", b)
	}
}

// TestSimLedgerDirKeepsFiles: sim ledger --dir makes a directory of each
// side's own there, for its ledger file; files already in DIR, and links
// planted under the ledger files' names, are left alone.
func TestSimLedgerDirKeepsFiles(t *testing.T) {
	dir := t.TempDir()
	precious := filepath.Join(t.TempDir(), "precious")
	os.WriteFile(precious, []byte("precious"), 0o644)
	os.Symlink(precious, filepath.Join(dir, "ledger-fanseal.bin"))
	os.WriteFile(filepath.Join(dir, "ledger-baseline.bin"), []byte("mine"), 0o644)
	execOK(t, "", "sim", "ledger", "--quick", "--duration", "300ms", "--dir", dir)
	if b, _ := os.ReadFile(precious); string(b) != "precious" {
		t.Fatalf("the planted link's target holds %d bytes", len(b))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ledger-baseline.bin")); string(b) != "mine" {
		t.Fatalf("a file in --dir was overwritten (%d bytes)", len(b))
	}
	if runs, _ := filepath.Glob(filepath.Join(dir, "fanseal-sim-ledger-*", "ledger-*.bin")); len(runs) != 2 {
		t.Fatalf("--dir holds %v after the run", entries(t, dir))
	}
}
