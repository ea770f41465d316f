package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
	"filippo.io/age/armor"
)

// ageHeader starts every age file, as age's spec has it.
const ageHeader = "age-encryption.org/v1\n"

// TestAgeGrammar: under its own name, fanseal reads age's command line
// when its first argument is one of age's flags (fanseal -e, -d, -r, ...),
// and then writes and reads age files as age does, which age's library
// opens; fanseal's own commands keep writing fanseal envelopes.
func TestAgeGrammar(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key.txt")
	pub := keygenTo(t, key)
	id, err := age.ParseX25519Identity(strings.TrimSpace(lastLine(t, key)))
	if err != nil {
		t.Fatalf("age cannot read keygen's key: %v", err)
	}
	for _, args := range [][]string{
		{"-e", "-r", pub},
		{"-r", pub},
		{"--encrypt", "--recipient", pub},
		{"-e", "-i", key},
		{"-a", "-r", pub},
	} {
		status, out, errOut := cli(t, "age's grammar", args...)
		if status != 0 || errOut != "" {
			t.Fatalf("fanseal %v: status %d, stderr %q", args, status, errOut)
		}
		if got := ageOpen(t, []byte(out), id); string(got) != "age's grammar" {
			t.Fatalf("fanseal %v: age opens %q", args, got)
		}
		if armored := strings.HasPrefix(out, armor.Header); armored != (args[0] == "-a") || (!armored && !strings.HasPrefix(out, ageHeader)) {
			t.Fatalf("fanseal %v wrote %.40q, not an age file", args, out)
		}
		for _, dargs := range [][]string{{"-d", "-i", key}, {"--decrypt", "--identity", key}, {"-i", key, "-d"}} {
			if got := mustRun(t, out, dargs...); got != "age's grammar" {
				t.Fatalf("fanseal %v: %q", dargs, got)
			}
		}
	}
	// fanseal's own command: a fanseal envelope, which -d opens too.
	env := mustRun(t, "fanseal's grammar", "encrypt", "-r", pub)
	if !strings.HasPrefix(env, "FANSEAL") {
		t.Fatalf("fanseal encrypt wrote %.20q, not a fanseal envelope", env)
	}
	if got := mustRun(t, env, "-d", "-i", key); got != "fanseal's grammar" {
		t.Fatalf("fanseal -d of an envelope: %q", got)
	}
	// age's checks, in age's words, under fanseal's name, before any work.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-e"}, "missing recipients"},
		{[]string{"-d", "-r", pub}, "-r/--recipient can't be used with -d/--decrypt"},
		{[]string{"-i", key}, "did you forget -d/--decrypt?"},
		{[]string{"-p", "-r", pub}, "-p/--passphrase can't be combined with -r/--recipient"},
		{[]string{"-r", pub, "a", "b"}, "too many INPUT arguments"},
	} {
		status, out, errOut := cli(t, "", c.args...)
		if status != 1 || out != "" || !strings.HasPrefix(errOut, "fanseal: error: ") || !strings.Contains(errOut, c.want) {
			t.Errorf("fanseal %v: status %d, stdout %q, stderr %q; want fanseal: error: ...%s", c.args, status, out, errOut, c.want)
		}
	}
	// A flag age does not have is a usage error, with age's status 2 and
	// the usage on standard error.
	if status, out, errOut := cli(t, "", "-d", "--identified"); status != 2 || out != "" || !strings.Contains(errOut, "Usage:\n    fanseal [--encrypt]") {
		t.Errorf("fanseal -d --identified: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	// -h is still fanseal's own help.
	if status, out, _ := cli(t, "", "-h"); status != 0 || !strings.Contains(out, "fanseal seals one payload") {
		t.Errorf("fanseal -h: status %d, %.60q", status, out)
	}
}

// TestAgeKeygenGrammar: run as age-keygen, fanseal writes the key to
// standard output or -o and "Public key: ..." to standard error, takes -pq
// and -y, and writes only age's spelling.
func TestAgeKeygenGrammar(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key.txt")
	var out, errOut bytes.Buffer
	if status := runAgeKeygen("age-keygen", []string{"-pq", "-o", key}, strings.NewReader(""), &out, &errOut); status != 0 || out.Len() != 0 {
		t.Fatalf("age-keygen -pq -o: status %d, stdout %q, stderr %q", status, out.String(), errOut.String())
	}
	pub, ok := strings.CutPrefix(strings.TrimSpace(errOut.String()), "Public key: ")
	if !ok || !strings.HasPrefix(pub, "age1pq1") {
		t.Fatalf("age-keygen -pq: stderr %q", errOut.String())
	}
	if _, err := age.ParseHybridIdentity(lastLine(t, key)); err != nil {
		t.Fatalf("age cannot read the key age-keygen -pq wrote: %v", err)
	}
	if body := string(mustRead(t, key)); strings.Contains(body, "# suite:") || !strings.Contains(body, "\n# public key: "+pub+"\n") {
		t.Fatalf("age-keygen's key file has fanseal's comments, or lacks age's:\n%s", body)
	}
	out.Reset()
	errOut.Reset()
	if status := runAgeKeygen("age-keygen", []string{"-y", key}, strings.NewReader(""), &out, &errOut); status != 0 || out.String() != pub+"\n" || errOut.Len() != 0 {
		t.Fatalf("age-keygen -y: status %d, stdout %q, stderr %q", status, out.String(), errOut.String())
	}
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"-pq", "-y", key}, 1, "age-keygen: error: -pq cannot be used with -y"},
		{[]string{"-o", key}, 1, "age-keygen: error: "},
		{[]string{"-y", filepath.Join(dir, "none")}, 1, "failed to open input file"},
		{[]string{"--suite", "p256"}, 2, "flag provided but not defined"},
		{[]string{"-h"}, 0, "Usage:\n    age-keygen [-pq] [-o OUTPUT]"},
	} {
		out.Reset()
		errOut.Reset()
		if status := runAgeKeygen("age-keygen", c.args, strings.NewReader(""), &out, &errOut); status != c.status || out.Len() != 0 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("age-keygen %v: status %d, stdout %q, stderr %q; want status %d and %q", c.args, status, out.String(), errOut.String(), c.status, c.want)
		}
	}
}

// TestKeygenPQ: fanseal keygen takes age-keygen's -pq (and --pq), which is
// --suite mlkem768x25519; with -y or another suite it is refused.
func TestKeygenPQ(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{"-pq", "--pq"} {
		key := filepath.Join(dir, "pq"+flag)
		if pub := keygenTo(t, key, flag); !strings.HasPrefix(pub, "age1pq1") {
			t.Fatalf("keygen %s: %q", flag, pub)
		}
		if !strings.Contains(string(mustRead(t, key)), "# suite: mlkem768x25519\n") {
			t.Fatalf("keygen %s: not an mlkem768x25519 key", flag)
		}
	}
	keygenTo(t, filepath.Join(dir, "both"), "-pq", "--suite", "mlkem768x25519")
	mustFail(t, "", "-pq and --suite p256", "keygen", "-pq", "--suite", "p256")
	mustFail(t, "", "-pq and -y", "keygen", "-pq", "-y", filepath.Join(dir, "pq-pq"))
}

// TestBatchpass: -j batchpass is age's batchpass plugin built in. It seals
// and opens age files, and fanseal envelopes, with the passphrase of
// AGE_PASSPHRASE or AGE_PASSPHRASE_FD, at the work factor of
// AGE_PASSPHRASE_WORK_FACTOR, refusing a file over
// AGE_PASSPHRASE_MAX_WORK_FACTOR; age's library opens its age files.
func TestBatchpass(t *testing.T) {
	t.Setenv("AGE_PASSPHRASE", "from the environment")
	t.Setenv("AGE_PASSPHRASE_WORK_FACTOR", "10")
	t.Setenv("AGE_PASSPHRASE_FD", "")
	t.Setenv("AGE_PASSPHRASE_MAX_WORK_FACTOR", "")
	withPassphrases(t) // nothing is asked on the terminal
	ageFile := mustRun(t, "batch", "-e", "-j", "batchpass")
	id, err := age.NewScryptIdentity("from the environment")
	if err != nil {
		t.Fatal(err)
	}
	if got := ageOpen(t, []byte(ageFile), id); string(got) != "batch" {
		t.Fatalf("age opens %q", got)
	}
	env := mustRun(t, "batch", "encrypt", "-j", "batchpass")
	if !strings.HasPrefix(env, "FANSEAL") {
		t.Fatalf("fanseal encrypt -j batchpass wrote %.20q", env)
	}
	for _, file := range []string{ageFile, env} {
		for _, args := range [][]string{{"-d", "-j", "batchpass"}, {"decrypt", "-j", "batchpass"}} {
			if got := mustRun(t, file, args...); got != "batch" {
				t.Fatalf("fanseal %v: %q", args, got)
			}
		}
	}
	t.Setenv("AGE_PASSPHRASE_MAX_WORK_FACTOR", "9")
	mustFail(t, ageFile, "work factor", "-d", "-j", "batchpass")
	t.Setenv("AGE_PASSPHRASE_MAX_WORK_FACTOR", "")
	t.Setenv("AGE_PASSPHRASE", "a wrong guess")
	mustFail(t, ageFile, "incorrect passphrase", "-d", "-j", "batchpass")
	mustFail(t, env, "incorrect passphrase", "decrypt", "-j", "batchpass")
	t.Setenv("AGE_PASSPHRASE_FD", "3")
	mustFail(t, ageFile, "mutually exclusive", "-d", "-j", "batchpass")
	t.Setenv("AGE_PASSPHRASE", "")
	t.Setenv("AGE_PASSPHRASE_FD", "")
	mustFail(t, ageFile, "must be set", "-d", "-j", "batchpass")
	t.Setenv("AGE_PASSPHRASE_WORK_FACTOR", "31")
	t.Setenv("AGE_PASSPHRASE", "x")
	mustFail(t, "", "between 1 and 30", "-e", "-j", "batchpass")
	// A file not sealed to a passphrase says so.
	dir := t.TempDir()
	pub := keygenTo(t, filepath.Join(dir, "key"))
	mustFail(t, mustRun(t, "x", "-r", pub), "not passphrase-encrypted", "-d", "-j", "batchpass")
}

// TestBatchpassFD: AGE_PASSPHRASE_FD names a descriptor the passphrase is
// read from, its line ending dropped.
func TestBatchpassFD(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	pass := writeFile(t, dir, "pass", []byte("on a descriptor\n"))
	in := writeFile(t, dir, "in", []byte("by descriptor"))
	out := filepath.Join(dir, "out.age")
	f, err := os.Open(pass)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := commandFor(t, bin, "-e", "-j", "batchpass", "-o", out, in)
	cmd.Env = append(os.Environ(), "AGE_PASSPHRASE=", "AGE_PASSPHRASE_FD=3", "AGE_PASSPHRASE_WORK_FACTOR=10")
	cmd.ExtraFiles = []*os.File{f}
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("-e -j batchpass with AGE_PASSPHRASE_FD: %v: %s", err, msg)
	}
	id, err := age.NewScryptIdentity("on a descriptor")
	if err != nil {
		t.Fatal(err)
	}
	if got := ageOpen(t, mustRead(t, out), id); string(got) != "by descriptor" {
		t.Fatalf("age opens %q", got)
	}
}

// TestDropInNames: the built command linked as age and age-keygen is
// those programs, by the name it runs under (argv[0]); and under a shell
// alias age=fanseal, which keeps argv[0] fanseal, age's grammar works too.
func TestDropInNames(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	for _, name := range []string{"age", "age-keygen"} {
		if err := os.Symlink(bin, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	run := func(stdin string, name string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, name), args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}
	status, out, errOut := run("", "age-keygen", "-o", "key.txt")
	pub, ok := strings.CutPrefix(strings.TrimSpace(errOut), "Public key: ")
	if status != 0 || out != "" || !ok || !strings.HasPrefix(pub, "age1") {
		t.Fatalf("age-keygen -o: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	status, env, errOut := run("dropped in", "age", "-r", pub)
	if status != 0 || !strings.HasPrefix(env, ageHeader) || errOut != "" {
		t.Fatalf("age -r: status %d, stderr %q, output %.30q", status, errOut, env)
	}
	if status, out, errOut = run(env, "age", "-d", "-i", "key.txt"); status != 0 || out != "dropped in" {
		t.Fatalf("age -d: status %d, %q, stderr %q", status, out, errOut)
	}
	if status, out, errOut = run("", "age", "-h"); status != 0 || out != "" || !strings.HasPrefix(errOut, "Usage:\n    age [--encrypt]") {
		t.Fatalf("age -h: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	if status, out, errOut = run("", "age", "-d", "nothing.age"); status != 1 || out != "" || !strings.HasPrefix(errOut, "age: error: ") {
		t.Fatalf("age -d of a missing file: status %d, stdout %q, stderr %q", status, out, errOut)
	}
	// fanseal's own commands are not age's: age takes no "encrypt" word.
	if status, _, errOut = run("", "age", "encrypt", "-r", pub); status != 1 || !strings.HasPrefix(errOut, "age: error: ") {
		t.Fatalf("age encrypt: status %d, stderr %q", status, errOut)
	}
	if status, out, _ = run("", "age-keygen", "-y", "key.txt"); status != 0 || out != pub+"\n" {
		t.Fatalf("age-keygen -y: status %d, %q", status, out)
	}
	// alias age=fanseal: argv[0] stays fanseal, and age's grammar selects
	// age's behaviour.
	script := "shopt -s expand_aliases\nalias age=" + bin + "\nprintf aliased | age -r " + pub + " -o aliased.age && age -d -i key.txt aliased.age\n"
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	got, err := cmd.CombinedOutput()
	if err != nil || string(got) != "aliased" || !bytes.HasPrefix(mustRead(t, filepath.Join(dir, "aliased.age")), []byte(ageHeader)) {
		t.Fatalf("alias age=fanseal: %v: %q", err, got)
	}
}

// lastLine returns the last line of the file name, without its newline.
func lastLine(t *testing.T, name string) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(mustRead(t, name)), "\n"), "\n")
	return lines[len(lines)-1]
}
