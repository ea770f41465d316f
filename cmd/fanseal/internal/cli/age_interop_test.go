//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"filippo.io/age/plugin"
)

// ageCommands are age's own commands (filippo.io/age v1.3.2, the version
// go.mod names as a tool), built once for the interop tests.
var ageCommands struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// ageTool returns the path of one of age's commands (age, age-keygen,
// age-inspect, age-plugin-batchpass), built from the module cache, or of
// fanseal's test plugin, age-plugin-fstest.
func ageTool(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds age's commands")
	}
	requireExec(t)
	ageCommands.once.Do(func() {
		ageCommands.dir, ageCommands.err = os.MkdirTemp("", "age-bin")
		if ageCommands.err != nil {
			return
		}
		args := []string{"build", "-o", ageCommands.dir + "/"}
		for _, c := range []string{"age", "age-keygen", "age-inspect", "age-plugin-batchpass"} {
			args = append(args, "filippo.io/age/cmd/"+c)
		}
		ageCommands.out, ageCommands.err = exec.Command("go", args...).CombinedOutput()
		if ageCommands.err == nil {
			// fanseal's test plugin, age-plugin-fstest (testdata/ageplugin).
			ageCommands.out, ageCommands.err = exec.Command("go", "build", "-o", filepath.Join(ageCommands.dir, "age-plugin-fstest"), "./testdata/ageplugin").CombinedOutput()
		}
	})
	if ageCommands.err != nil {
		t.Fatalf("building age's commands: %v\n%s", ageCommands.err, ageCommands.out)
	}
	return filepath.Join(ageCommands.dir, name)
}

// runAge runs one of age's commands and returns its standard output.
func runAge(t *testing.T, stdin []byte, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(ageTool(t, name), args...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v: %s", name, args, err, stderr.String())
	}
	return out
}

// An ageKeyKind is a kind of key both age and fanseal's age files know:
// an identity file and the recipient line age encrypts to.
type ageKeyKind struct {
	name, identity, recipient string
}

// ageKeyKinds makes one key of every kind that age and fanseal both
// use, in this order: X25519 and post-quantum from age-keygen,
// ssh-ed25519 and ssh-rsa.
func ageKeyKinds(t *testing.T, dir string) []ageKeyKind {
	t.Helper()
	var kinds []ageKeyKind
	for _, name := range []string{"x25519", "mlkem768x25519"} {
		var flags []string
		if name == "mlkem768x25519" {
			flags = []string{"-pq"}
		}
		key := filepath.Join(dir, name+".txt")
		runAge(t, nil, nil, "age-keygen", append(flags, "-o", key)...)
		pub := strings.TrimSpace(string(runAge(t, nil, nil, "age-keygen", "-y", key)))
		kinds = append(kinds, ageKeyKind{name, key, pub})
	}
	for _, kind := range []string{"ssh-ed25519", "ssh-rsa"} {
		priv, authorized := sshKeyPair(t, dir, kind)
		kinds = append(kinds, ageKeyKind{kind, priv, authorized})
	}
	return kinds
}

// TestAgeInterop: files that the age command writes, binary and armored,
// open with fanseal decrypt, and files that encrypt --age writes open
// with age -d, for every recipient type both support.
func TestAgeInterop(t *testing.T) {
	dir := t.TempDir()
	payload := bytes.Repeat([]byte("between age and fanseal\n"), 6000)
	in := writeFile(t, dir, "plain", payload)
	for _, k := range ageKeyKinds(t, dir) {
		recipients := writeFile(t, dir, k.name+".pub", []byte("# "+k.name+"\n"+k.recipient+"\n"))
		for _, armored := range []bool{false, true} {
			var a []string
			if armored {
				a = []string{"-a"}
			}
			// age → fanseal
			file := filepath.Join(dir, k.name+".age")
			os.Remove(file)
			runAge(t, nil, nil, "age", append(a, "-R", recipients, "-o", file, in)...)
			out := filepath.Join(dir, "out")
			os.Remove(out)
			mustRun(t, "", "decrypt", "-i", k.identity, "-o", out, file)
			if got, _ := os.ReadFile(out); !bytes.Equal(got, payload) {
				t.Fatalf("%s armored=%v: fanseal decrypt of age's file: another payload", k.name, armored)
			}
			// fanseal → age
			os.Remove(file)
			mustRun(t, "", append(append([]string{"encrypt", "--age"}, a...), "-R", recipients, "-o", file, in)...)
			if got := runAge(t, nil, nil, "age", "-d", "-i", k.identity, file); !bytes.Equal(got, payload) {
				t.Fatalf("%s armored=%v: age -d of fanseal's file: another payload", k.name, armored)
			}
		}
	}
	// The real fanseal binary too, through pipes, for several recipients.
	if testing.Short() {
		return
	}
	kinds := ageKeyKinds(t, t.TempDir())
	x, ed := kinds[0], kinds[2]
	cmd := commandFor(t, binary(t), "encrypt", "--age", "-a", "-r", x.recipient, "-r", ed.recipient)
	cmd.Stdin = bytes.NewReader(payload)
	file, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{x.identity, ed.identity} {
		if got := runAge(t, file, nil, "age", "-d", "-i", id); !bytes.Equal(got, payload) {
			t.Fatalf("age -d -i %s of fanseal's two-recipient file: another payload", filepath.Base(id))
		}
	}
}

// TestAgeInteropPassphraseAndPlugin: a passphrase file that age writes
// (through age's own age-plugin-batchpass, since age -p reads only a
// terminal) opens with fanseal decrypt asking the passphrase, and with
// the plugin's identity, through the plugin protocol to the real plugin.
func TestAgeInteropPassphraseAndPlugin(t *testing.T) {
	dir := t.TempDir()
	batchpass := ageTool(t, "age-plugin-batchpass")
	env := []string{"PATH=" + filepath.Dir(batchpass) + string(os.PathListSeparator) + os.Getenv("PATH"), "AGE_PASSPHRASE=hunter2 hunter2", "AGE_PASSPHRASE_WORK_FACTOR=10"}
	file := writeFile(t, dir, "pass.age", runAge(t, []byte("sealed to a passphrase by age"), env, "age", "-e", "-j", "batchpass"))
	asked := withPassphrase(t, "hunter2 hunter2")
	out := filepath.Join(dir, "out")
	mustRun(t, "", "decrypt", "-o", out, file)
	if got, _ := os.ReadFile(out); string(got) != "sealed to a passphrase by age" || *asked != 1 {
		t.Fatalf("passphrase: %q, asked %d times", got, *asked)
	}
	var rep ageInspection
	if err := json.Unmarshal([]byte(mustRun(t, "", "inspect", "--json", file)), &rep); err != nil || !reflect.DeepEqual(rep.StanzaTypes, []string{"scrypt"}) {
		t.Fatalf("inspect: %+v %v", rep, err)
	}
	// The plugin identity: fanseal runs age-plugin-batchpass.
	t.Setenv("PATH", filepath.Dir(batchpass)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("AGE_PASSPHRASE", "hunter2 hunter2")
	id := writeFile(t, dir, "batchpass.key", []byte("# age's batchpass plugin\n"+plugin.EncodeIdentity("batchpass", nil)+"\n"))
	*asked = 0
	os.Remove(out)
	mustRun(t, "", "decrypt", "-i", id, "-o", out, file)
	if got, _ := os.ReadFile(out); string(got) != "sealed to a passphrase by age" || *asked != 0 {
		t.Fatalf("plugin identity: %q, passphrase asked %d times", got, *asked)
	}
	// -j batchpass: the plugin without an identity, as age -j.
	os.Remove(out)
	mustRun(t, "", "decrypt", "-j", "batchpass", "-o", out, file)
	if got, _ := os.ReadFile(out); string(got) != "sealed to a passphrase by age" || *asked != 0 {
		t.Fatalf("-j batchpass: %q, passphrase asked %d times", got, *asked)
	}
	_, _, pubs := setup(t, "x25519", 1)
	// A fanseal envelope for another key: the plugin is asked, and is not
	// its recipient.
	mustFail(t, mustRun(t, "x", "encrypt", "-r", pubs[0]), "not a recipient", "decrypt", "-j", "batchpass")
	// encrypt --age -p's file opens with age (its batchpass plugin reads
	// the passphrase from the environment; age -p reads only a terminal).
	fastScrypt(t)
	withPassphrases(t, "hunter2 hunter2", "hunter2 hunter2")
	ours := filepath.Join(dir, "ours.age")
	mustRun(t, "written by fanseal", "encrypt", "--age", "-p", "-o", ours)
	if got := runAge(t, nil, env, "age", "-d", "-j", "batchpass", ours); string(got) != "written by fanseal" {
		t.Fatalf("age -d -j batchpass of encrypt --age -p's file: %q", got)
	}
	// encrypt -j batchpass, as age -e -j: an age file that age opens with
	// -j, and a fanseal envelope that decrypt -j opens.
	t.Setenv("AGE_PASSPHRASE_WORK_FACTOR", "10")
	byJ := filepath.Join(dir, "j.age")
	mustRun(t, "through -j", "encrypt", "--age", "-j", "batchpass", "-o", byJ)
	if got := runAge(t, nil, env, "age", "-d", "-j", "batchpass", byJ); string(got) != "through -j" {
		t.Fatalf("age -d -j batchpass of encrypt --age -j's file: %q", got)
	}
	envJ := filepath.Join(dir, "j.fsl")
	mustRun(t, "through -j", "encrypt", "-j", "batchpass", "-o", envJ)
	if got := mustRun(t, "", "decrypt", "-j", "batchpass", envJ); got != "through -j" {
		t.Fatalf("decrypt -j batchpass of encrypt -j's envelope: %q", got)
	}
	// A missing plugin says where plugins come from.
	missing := writeFile(t, dir, "missing.key", []byte(plugin.EncodeIdentity("nosuchplugin", nil)+"\n"))
	mustFail(t, "", "age-encryption.org/awesome#plugins", "decrypt", "-i", missing, file)
}

// TestInspectAgeMatchesAgeInspect: fanseal inspect --json of an age file
// gives what age-inspect --json gives.
func TestInspectAgeMatchesAgeInspect(t *testing.T) {
	dir := t.TempDir()
	kinds := ageKeyKinds(t, dir)
	for _, size := range []int{0, 1, 64 << 10, 64<<10 + 1, 200000} {
		in := writeFile(t, dir, "plain", bytes.Repeat([]byte{'x'}, size))
		for _, k := range kinds {
			for _, armored := range []bool{false, true} {
				file := filepath.Join(dir, "f.age")
				os.Remove(file)
				args := []string{"-r", k.recipient, "-o", file, in}
				if k.name == "x25519" {
					args = append([]string{"-r", kinds[2].recipient}, args...) // two stanzas
				}
				if armored {
					args = append([]string{"-a"}, args...)
				}
				runAge(t, nil, nil, "age", args...)
				var want, got map[string]any
				if err := json.Unmarshal(runAge(t, nil, nil, "age-inspect", "--json", file), &want); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(mustRun(t, "", "inspect", "--json", file)), &got); err != nil {
					t.Fatal(err)
				}
				delete(got, "format")
				delete(got, "chunks")
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %d bytes, armored=%v:\nfanseal inspect: %v\nage-inspect:     %v", k.name, size, armored, got, want)
				}
			}
		}
	}
}

// TestAgeInteropPlugin: a plugin built in the test (age-plugin-fstest,
// speaking the real protocol through filippo.io/age/plugin) serves
// recipients of encrypt --age and identities of decrypt, and age reads
// both ways what fanseal and the plugin wrote.
func TestAgeInteropPlugin(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Dir(ageTool(t, "age-plugin-fstest"))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	recipient := plugin.EncodeRecipient("fstest", []byte("alice"))
	id := writeFile(t, dir, "plugin.key", []byte("# the test plugin\n"+plugin.EncodeIdentity("fstest", nil)+"\n"))
	payload := []byte("through a plugin")
	in := writeFile(t, dir, "plain", payload)
	ours := filepath.Join(dir, "ours.age")
	mustRun(t, "", "encrypt", "--age", "-r", recipient, "-o", ours, in)
	var rep ageInspection
	if err := json.Unmarshal([]byte(mustRun(t, "", "inspect", "--json", ours)), &rep); err != nil || !reflect.DeepEqual(rep.StanzaTypes, []string{"fstest"}) || rep.PostQuantum != "unknown" {
		t.Fatalf("inspect: %+v %v", rep, err)
	}
	if got := runAge(t, nil, nil, "age", "-d", "-i", id, ours); !bytes.Equal(got, payload) {
		t.Fatalf("age -d of fanseal's plugin file: %q", got)
	}
	theirs := writeFile(t, dir, "theirs.age", runAge(t, payload, nil, "age", "-a", "-r", recipient))
	for _, file := range []string{ours, theirs} {
		if got := mustRun(t, "", "decrypt", "-i", id, file); got != string(payload) {
			t.Fatalf("fanseal decrypt of %s: %q", filepath.Base(file), got)
		}
	}
	// A plugin that is not installed says where plugins come from.
	mustFail(t, "x", "age-encryption.org/awesome#plugins", "encrypt", "--age", "-r", plugin.EncodeRecipient("nosuchplugin", nil))
}
