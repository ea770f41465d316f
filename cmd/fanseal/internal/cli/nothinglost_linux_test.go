package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run the built command as a separate process, with real
// descriptors, links and signals: each item of the output rule
// (outputRule) that a shell user meets.

// binaryRun runs bin with args, stdin as its input and the given files
// as its standard output and error (nil: discarded), and returns its exit
// status and standard error.
func binaryRun(t *testing.T, bin, stdin string, stdout, stderr *os.File, args ...string) (int, string) {
	t.Helper()
	cmd := commandFor(t, bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var errOut bytes.Buffer
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if stderr != nil {
		cmd.Stderr = stderr
	} else {
		cmd.Stderr = &errOut
	}
	cmd.Run()
	return cmd.ProcessState.ExitCode(), errOut.String()
}

// inode returns the inode of name, following links.
func inode(t *testing.T, name string) uint64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestDescriptorNamesAppend: /dev/stdout, /dev/fd/1, /proc/self/fd/1 and
// /dev/stderr into a file the shell opened for appending (">> log") are
// written through the descriptor, as "-" is: the log keeps what it held,
// stays the same file, and what the shell writes after lands in it.
func TestDescriptorNamesAppend(t *testing.T) {
	bin := binary(t)
	_, keys, pubs := setup(t, "x25519", 1)
	payload := "the payload\n"
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	for _, name := range []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev/./stdout", "/dev/stderr", "/dev/fd/2"} {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			os.WriteFile(log, []byte("earlier\n"), 0o644)
			before := inode(t, log)
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var status int
			var stderr string
			if strings.Contains(name, "err") || strings.HasSuffix(name, "/2") {
				status, stderr = binaryRun(t, bin, env, nil, f, "decrypt", "-i", keys[0], "-o", name)
			} else {
				status, stderr = binaryRun(t, bin, env, f, nil, "decrypt", "-i", keys[0], "-o", name)
			}
			if status != 0 {
				t.Fatalf("status %d: %s", status, stderr)
			}
			io.WriteString(f, "later\n")
			b, _ := os.ReadFile(log)
			if string(b) != "earlier\n"+payload+"later\n" {
				t.Fatalf("the log holds %q", b)
			}
			if inode(t, log) != before {
				t.Fatal("the log was replaced by a new file")
			}
		})
	}
}

// TestDescriptorNamesPipeAndSocket: /dev/stdout and /dev/fd/1 into a pipe
// or a socket work as "-" does.
func TestDescriptorNamesPipeAndSocket(t *testing.T) {
	bin := binary(t)
	_, keys, pubs := setup(t, "x25519", 1)
	payload := strings.Repeat("through a pipe\n", 10000)
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	pipe := func(t *testing.T) (r, w *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		return r, w
	}
	socket := func(t *testing.T) (r, w *os.File) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(fds[0]), "socket"), os.NewFile(uintptr(fds[1]), "socket")
	}
	for _, kind := range []struct {
		name string
		open func(*testing.T) (r, w *os.File)
	}{{"pipe", pipe}, {"socket", socket}} {
		for _, name := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
			t.Run(kind.name+strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
				r, w := kind.open(t)
				defer r.Close()
				got := make(chan []byte)
				go func() { b, _ := io.ReadAll(r); got <- b }()
				status, stderr := binaryRun(t, bin, env, w, nil, "decrypt", "-i", keys[0], "-o", name)
				w.Close()
				if b := <-got; status != 0 || string(b) != payload {
					t.Fatalf("status %d, %d bytes came through: %s", status, len(b), stderr)
				}
			})
		}
	}
}

// TestLinkInStickyDirectory, as root: another user's symbolic link in a
// world-writable sticky directory is not followed (the kernel's
// protected_symlinks rule, whatever the system's setting), so the file it
// points to is untouched; the caller's own link there is followed and its
// target written in place (same inode, mode and owner), and only once
// the payload has authenticated.
func TestLinkInStickyDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a link to another user")
	}
	bin := binary(t)
	_, keys, pubs := setup(t, "x25519", 1)
	payload := strings.Repeat("secret ", 50000)
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	sticky := t.TempDir()
	if err := os.Chmod(sticky, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(victim, []byte("root:secret\n"), 0o640)
	os.Chown(victim, 0, 42)
	ino := inode(t, victim)

	theirs := filepath.Join(sticky, "out.fsl")
	if err := os.Symlink(victim, theirs); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"encrypt", "-r", pubs[0], "-o", theirs},
		{"decrypt", "-i", keys[0], "-o", theirs},
		{"sim", "dkg", "--quick", "--members", "3", "--duration", "100ms", "--rounds", "1", "--json", theirs},
	} {
		stdin := payload
		if args[0] == "decrypt" {
			stdin = env
		}
		status, stderr := binaryRun(t, bin, stdin, nil, nil, args...)
		if status != 1 || !strings.Contains(stderr, "protected_symlinks") {
			t.Fatalf("%s through another user's link: status %d, stderr %q", args[0], status, stderr)
		}
		if b, _ := os.ReadFile(victim); string(b) != "root:secret\n" || inode(t, victim) != ino {
			t.Fatalf("%s wrote the link's target: %q", args[0], b)
		}
	}

	// The caller's own link is followed, in place, once authenticated.
	mine := filepath.Join(sticky, "mine")
	if err := os.Symlink(victim, mine); err != nil {
		t.Fatal(err)
	}
	tampered := []byte(env)
	tampered[len(tampered)-1] ^= 1
	if status, stderr := binaryRun(t, bin, string(tampered), nil, nil, "decrypt", "-i", keys[0], "-o", mine); status != 1 {
		t.Fatalf("a tampered envelope: status %d: %s", status, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "root:secret\n" {
		t.Fatalf("a tampered envelope put %d bytes in the link's target", len(b))
	}
	if status, stderr := binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", mine); status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	fi, _ := os.Stat(victim)
	if b, _ := os.ReadFile(victim); string(b) != payload || inode(t, victim) != ino ||
		fi.Mode().Perm() != 0o640 || fi.Sys().(*syscall.Stat_t).Gid != 42 {
		t.Fatalf("the link's target: %d bytes, inode %d (was %d), mode %v, group %d", len(b), inode(t, victim), ino, fi.Mode(), fi.Sys().(*syscall.Stat_t).Gid)
	}
	if !isType(t, mine, os.ModeSymlink) {
		t.Fatal("the link was replaced")
	}
}

// TestLinkTargetOnlyWhenComplete: a regular file reached through a link
// holds its old content while a decrypt is under way, and the payload
// once it has authenticated.
func TestLinkTargetOnlyWhenComplete(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	payload := strings.Repeat("plaintext prefix ", 60000)
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	cmd := commandFor(t, bin, "decrypt", "-i", keys[0], "-o", link)
	rest := startHalfFed(t, cmd, env)
	awaitPending(t, cmd.Process.Pid, dir) // staged beside the target
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Fatalf("mid-decrypt the target holds %d bytes", len(b))
	}
	rest()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != payload {
		t.Fatalf("the target holds %d bytes", len(b))
	}
}

// TestKeygenRaceKeepsFirstKey: keygen -o racing itself on one name, in
// both ways of holding the output: exactly one wins, and the file holds
// the key whose public key the winner printed.
func TestKeygenRaceKeepsFirstKey(t *testing.T) {
	for _, b := range []*build{built, builtNamed} {
		bin := b.get(t)
		for round := range 5 {
			key := filepath.Join(t.TempDir(), "id")
			const n = 12
			var wg sync.WaitGroup
			outs := make([]string, n)
			codes := make([]int, n)
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					cmd := commandFor(t, bin, "keygen", "-o", key)
					var stderr strings.Builder
					cmd.Stderr = &stderr
					cmd.Run()
					// The winner reports "Public key: age1…".
					outs[i] = strings.TrimPrefix(strings.TrimSpace(stderr.String()), "Public key: ")
					codes[i] = cmd.ProcessState.ExitCode()
				}()
			}
			close(start)
			wg.Wait()
			var won []string
			for i, c := range codes {
				if c == 0 {
					won = append(won, outs[i])
				}
			}
			body, _ := os.ReadFile(key)
			if len(won) != 1 || !strings.Contains(string(body), "# public key: "+won[0]+"\n") {
				t.Fatalf("%v round %d: %d keygens succeeded (%v); the file:\n%s", b.flags, round, len(won), won, body)
			}
		}
	}
}

// TestIgnoredSignalsStayIgnored: a decrypt started with SIGHUP ignored
// (nohup) or SIGINT ignored (a script's background job) lives through
// that signal and completes its output.
func TestIgnoredSignalsStayIgnored(t *testing.T) {
	bin := binary(t)
	for _, sig := range []struct {
		name string
		sig  syscall.Signal
	}{{"HUP", syscall.SIGHUP}, {"INT", syscall.SIGINT}} {
		t.Run(sig.name, func(t *testing.T) {
			dir, keys, pubs := setup(t, "x25519", 1)
			payload := strings.Repeat("plaintext prefix ", 60000)
			env := mustRun(t, payload, "encrypt", "-r", pubs[0])
			out := filepath.Join(dir, "out")
			cmd := exec.Command("sh", "-c", `trap '' `+sig.name+`; exec "$0" "$@"`, bin, "decrypt", "-i", keys[0], "-o", out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			rest := startHalfFed(t, cmd, env)
			awaitPending(t, cmd.Process.Pid, dir)
			cmd.Process.Signal(sig.sig)
			time.Sleep(100 * time.Millisecond)
			rest()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("decrypt with SIG%s ignored died of it: %v: %s", sig.name, err, stderr.String())
			}
			if b, _ := os.ReadFile(out); string(b) != payload {
				t.Fatalf("output holds %d bytes", len(b))
			}
		})
	}
}

// TestLongOutputName: an output name as long as the file system allows
// is written, in both ways of holding the output; one longer is refused
// before any work.
func TestLongOutputName(t *testing.T) {
	for _, b := range []*build{built, builtNamed} {
		bin := b.get(t)
		dir, keys, pubs := setup(t, "x25519", 1)
		env := mustRun(t, "payload", "encrypt", "-r", pubs[0])
		long := filepath.Join(dir, strings.Repeat("n", 255))
		if status, stderr := binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", long); status != 0 {
			t.Fatalf("%v: a 255-byte name: status %d: %s", b.flags, status, stderr)
		}
		if b, _ := os.ReadFile(long); string(b) != "payload" {
			t.Fatalf("the output holds %q", b)
		}
		tooLong := filepath.Join(dir, strings.Repeat("n", 256))
		status, stderr := binaryRun(t, bin, strings.Repeat("x", 1<<20), nil, nil, "encrypt", "-r", pubs[0], "-o", tooLong)
		if status != 1 || !strings.Contains(stderr, "cannot write") || !strings.Contains(stderr, "file name too long") {
			t.Fatalf("a 256-byte name: status %d, stderr %q", status, stderr)
		}
	}
}

// TestSameFileThroughLinks: two output flags that name one file through a
// link to its directory, through a link to the file, or through "..",
// are refused before the work.
func TestSameFileThroughLinks(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	d1, d2 := filepath.Join(dir, "d1"), filepath.Join(dir, "d2")
	os.Mkdir(d1, 0o755)
	os.Mkdir(filepath.Join(d1, "sub"), 0o755)
	os.Symlink("d1", d2)
	os.WriteFile(filepath.Join(d1, "existing"), nil, 0o644)
	os.Symlink("existing", filepath.Join(d1, "link"))
	sim := []string{"sim", "dkg", "--quick", "--members", "3", "--duration", "100ms", "--rounds", "1"}
	for _, pair := range [][2]string{
		{filepath.Join(d1, "x"), filepath.Join(d2, "x")},
		{filepath.Join(d1, "existing"), filepath.Join(d2, "link")},
		{filepath.Join(d1, "x"), filepath.Join(d1, "sub", "..", "x")},
		{"-", "/dev/stdout"},
	} {
		status, stderr := binaryRun(t, bin, "", nil, nil, append(sim, "--json", pair[0], "--cpuprofile", pair[1])...)
		if status != 1 || !(strings.Contains(stderr, "name the same file") || strings.Contains(stderr, "both write to standard output")) {
			t.Fatalf("--json %s --cpuprofile %s: status %d, stderr %q", pair[0], pair[1], status, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(d1, "x")); err == nil {
		t.Fatal("an output was written")
	}
	// Two different files in one directory, and /dev/null twice, are fine.
	if status, stderr := binaryRun(t, bin, "", nil, nil, append(sim, "--json", filepath.Join(d1, "a"), "--cpuprofile", filepath.Join(d2, "b"))...); status != 0 {
		t.Fatalf("two files: %d %s", status, stderr)
	}
	if status, stderr := binaryRun(t, bin, "", nil, nil, append(sim, "--json", os.DevNull, "--cpuprofile", os.DevNull)...); status != 0 {
		t.Fatalf("/dev/null twice: %d %s", status, stderr)
	}
}

// TestOutputIsInput: an output that is the input, an identity file or a
// recipients file, however spelled, is refused before any work, and the
// file stays as it was.
func TestOutputIsInput(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	plain := filepath.Join(dir, "X")
	os.WriteFile(plain, []byte("the plaintext"), 0o644)
	team := filepath.Join(dir, "team.txt")
	os.WriteFile(team, []byte(pubs[0]+"\n"), 0o644)
	envFile := filepath.Join(dir, "env")
	mustRun(t, "", "encrypt", "-r", pubs[0], "-o", envFile, plain)
	os.Mkdir(filepath.Join(dir, "foo"), 0o755)
	os.Symlink("X", filepath.Join(dir, "Xlink"))
	keyBefore, _ := os.ReadFile(keys[0])
	envBefore, _ := os.ReadFile(envFile)
	cases := [][]string{
		{"encrypt", "-r", pubs[0], "-o", plain, plain},
		{"encrypt", "-r", pubs[0], "-o", "./X", "X"},
		{"encrypt", "-r", pubs[0], "-o", "foo/../X", "X"},
		{"encrypt", "-r", pubs[0], "-o", "Xlink", "X"},
		{"encrypt", "-R", team, "-o", team, plain},
		{"encrypt", "-i", keys[0], "-o", keys[0], plain},
		{"encrypt", "--age", "-R", team, "-o", team, plain},
		{"decrypt", "-i", keys[0], "-o", keys[0], envFile},
		{"decrypt", "-i", keys[0], "-o", envFile, envFile},
		{"keygen", "-y", "-o", keys[0], keys[0]},
	}
	for _, args := range cases {
		cmd := commandFor(t, bin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "input and output file are the same") {
			t.Errorf("fanseal %v: %v, stderr %q", args, err, stderr.String())
		}
	}
	for name, want := range map[string]string{plain: "the plaintext", team: pubs[0] + "\n", keys[0]: string(keyBefore), envFile: string(envBefore)} {
		if b, _ := os.ReadFile(name); string(b) != want {
			t.Errorf("%s was changed: %q", filepath.Base(name), b)
		}
	}
}
