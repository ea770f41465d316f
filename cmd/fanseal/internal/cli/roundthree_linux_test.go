package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// These tests are the output-rule findings of a third review, each run
// against the built command: another user's FIFO, a full disk under a
// file reached through a link, a bind-mounted file, and the names of a
// descriptor that pass through a thread's fd directory.

// mountOrSkip runs mount(2), skipping the test where the process may not
// mount (a container without the capability), and unmounts at the end.
func mountOrSkip(t *testing.T, source, target, fstype string, flags uintptr, data string) {
	t.Helper()
	if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENODEV) {
			t.Skipf("cannot mount here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(target, syscall.MNT_DETACH) })
}

// TestForeignFIFORefused, as root: another user's FIFO in a world-writable
// sticky directory, with that user reading it, gets neither a new secret
// key nor plaintext (the kernel's protected_fifos rule, which open(2)
// applies only when it may create); the caller's own FIFO there is still
// written.
func TestForeignFIFORefused(t *testing.T) {
	needRoot(t)
	bin := binary(t)
	_, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, "the plaintext", "encrypt", "-r", pubs[0])
	sticky := stickyDir(t)
	fifo := func(name string, uid int) *os.File {
		t.Helper()
		p := filepath.Join(sticky, name)
		if err := syscall.Mkfifo(p, 0o622); err != nil {
			t.Fatal(err)
		}
		os.Chown(p, uid, uid)
		os.Chmod(p, 0o622)
		// The other user's reader: open without waiting for a writer.
		r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	read := func(r *os.File) string {
		buf := make([]byte, 4096)
		n, _ := r.Read(buf)
		return string(buf[:max(n, 0)])
	}
	for _, args := range [][]string{
		{"keygen", "-o", "key"},
		{"decrypt", "-i", keys[0], "-o", "out"},
	} {
		name := args[len(args)-1]
		r := fifo(name, 65534)
		args[len(args)-1] = filepath.Join(sticky, name)
		status, stderr := binaryRun(t, bin, env, nil, nil, args...)
		if status != 1 || !strings.Contains(stderr, "protected_fifos") {
			t.Errorf("%s into nobody's FIFO: status %d, %q", args[0], status, stderr)
		}
		if got := read(r); got != "" {
			t.Errorf("%s: nobody read %q from their FIFO", args[0], got)
		}
	}
	r := fifo("mine", 0)
	status, stderr := binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", filepath.Join(sticky, "mine"))
	if got := read(r); status != 0 || got != "the plaintext" {
		t.Fatalf("decrypt into my FIFO: status %d, %q; read %q", status, stderr, got)
	}
}

// TestFullDiskKeepsLinkTarget, as root: a file reached through a link, on
// a file system too small for both the staged output and the grown file,
// keeps its old content when the disk fills during the commit; one that
// fits still gets the whole output.
func TestFullDiskKeepsLinkTarget(t *testing.T) {
	needRoot(t)
	bin := binary(t)
	_, keys, pubs := setup(t, "x25519", 1)
	small := t.TempDir()
	mountOrSkip(t, "tmpfs", small, "tmpfs", 0, "size=1m")
	old := strings.Repeat("old content ", 400_000/12)
	target := filepath.Join(small, "target")
	if err := os.WriteFile(target, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(small, "link")
	os.Symlink("target", link)

	env := mustRun(t, strings.Repeat("new content ", 600_000/12), "encrypt", "-r", pubs[0])
	status, stderr := binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", link)
	if status != 1 || !strings.Contains(stderr, "no space") {
		t.Errorf("decrypt through a link onto a full disk: status %d, %q", status, stderr)
	}
	if b, _ := os.ReadFile(target); string(b) != old {
		t.Fatalf("the target holds %d bytes, %q…", len(b), b[:min(len(b), 24)])
	}
	if entries, _ := os.ReadDir(small); len(entries) != 2 {
		t.Fatalf("the file system holds %d names, not the target and the link", len(entries))
	}

	payload := strings.Repeat("fits ", 100_000/5)
	env = mustRun(t, payload, "encrypt", "-r", pubs[0])
	if status, stderr := binaryRun(t, bin, env, nil, nil, "decrypt", "-i", keys[0], "-o", link); status != 0 {
		t.Fatalf("a payload that fits: status %d, %q", status, stderr)
	}
	if b, _ := os.ReadFile(target); string(b) != payload {
		t.Fatalf("the target holds %d bytes, not the payload's %d", len(b), len(payload))
	}
}

// TestBindMountedFile, as root: a file mounted over another (as containers
// bind /etc/hosts), which rename(2) cannot replace, is written in place,
// also from a stream on standard input that cannot be read twice.
func TestBindMountedFile(t *testing.T) {
	needRoot(t)
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	source := filepath.Join(t.TempDir(), "hosts")
	os.WriteFile(source, []byte("127.0.0.1 localhost\n"), 0o644)
	mounted := filepath.Join(dir, "hosts")
	os.WriteFile(mounted, nil, 0o644)
	mountOrSkip(t, source, mounted, "", syscall.MS_BIND, "")
	before := inode(t, mounted)

	status, stderr := binaryRun(t, bin, "a stream read once", nil, nil, "encrypt", "-r", pubs[0], "-o", mounted)
	if status != 0 {
		t.Fatalf("encrypt onto a bind-mounted file: status %d, %q", status, stderr)
	}
	if inode(t, mounted) != before {
		t.Fatal("the mounted file was replaced")
	}
	if got := mustRun(t, "", "decrypt", "-i", keys[0], source); got != "a stream read once" {
		t.Fatalf("the bind mount's source decrypts to %q", got)
	}
}

// TestThreadDescriptorNames: every name of descriptor 3 that passes
// through /proc (a thread's fd directory, a relative link into
// /proc/self/fd, the fd directory as working directory) writes to the
// descriptor, as /dev/fd/3 does: a log the shell opened for appending
// keeps what it held.
func TestThreadDescriptorNames(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	rel := filepath.Join(dir, "rel")
	up := strings.Repeat("../", strings.Count(filepath.Clean(dir), "/"))
	if err := os.Symlink(up+"proc/self/fd/3", rel); err != nil {
		t.Fatal(err)
	}
	for name, script := range map[string]string{
		"dev_fd":       `exec "$0" keygen -y -o /dev/fd/3 "$1" 3>>"$2"`,
		"task":         `exec "$0" keygen -y -o /proc/self/task/$$/fd/3 "$1" 3>>"$2"`,
		"pid_task":     `exec "$0" keygen -y -o /proc/$$/task/$$/fd/3 "$1" 3>>"$2"`,
		"relative":     `exec "$0" keygen -y -o "$3" "$1" 3>>"$2"`,
		"working_dir":  `cd /proc/self/fd && exec "$0" keygen -y -o 3 "$1" 3>>"$2"`,
		"thread_self_": `exec "$0" keygen -y -o /proc/thread-self/fd/3 "$1" 3>>"$2"`,
	} {
		t.Run(name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "log")
			os.WriteFile(log, []byte("earlier\n"), 0o644)
			out, err := exec.Command("sh", "-c", script, bin, keys[0], log, rel).CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if b, _ := os.ReadFile(log); string(b) != "earlier\n"+pubs[0]+"\n" {
				t.Fatalf("the log holds %q", b)
			}
		})
	}
}
