package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fanseal/fanseal"
)

// cli runs the command in-process and returns its status and output.
func cli(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if len(args) > 0 && tools[args[0]] != "" {
		// A tool is a program of its own: run it as one.
		if testing.Short() {
			t.Skipf("runs go run %s, which -short does not build", tools[args[0]])
		}
		return execCLI(t, stdin, args...)
	}
	var out, errOut bytes.Buffer
	status := run(args, strings.NewReader(stdin), &out, &errOut)
	return status, out.String(), errOut.String()
}

func mustRun(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	status, out, errOut := cli(t, stdin, args...)
	if status != 0 {
		t.Fatalf("fanseal %v: status %d: %s", args, status, errOut)
	}
	return out
}

func mustFail(t *testing.T, stdin, want string, args ...string) {
	t.Helper()
	status, _, errOut := cli(t, stdin, args...)
	if status != 1 {
		t.Fatalf("fanseal %v: status %d, want 1", args, status)
	}
	if !strings.HasPrefix(errOut, "fanseal: error: ") || !strings.Contains(errOut, want) {
		t.Fatalf("fanseal %v: stderr %q, want fanseal: error: ...%s...", args, errOut, want)
	}
	if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
		t.Fatalf("stderr shows a panic: %s", errOut)
	}
}

// keygenTo runs keygen -o key with the flags given and returns the public
// key it reported: "Public key: X" on standard error, as age-keygen
// reports it, with nothing on standard output.
func keygenTo(t *testing.T, key string, flags ...string) string {
	t.Helper()
	args := append([]string{"keygen"}, flags...)
	args = append(args, "-o", key)
	status, out, errOut := cli(t, "", args...)
	if status != 0 {
		t.Fatalf("fanseal %v: status %d: %s", args, status, errOut)
	}
	pub, ok := strings.CutPrefix(errOut, "Public key: ")
	if out != "" || !ok || strings.Count(pub, "\n") != 1 || !strings.HasSuffix(pub, "\n") {
		t.Fatalf("fanseal %v: stdout %q, stderr %q; want nothing on stdout and one \"Public key: \" line on stderr", args, out, errOut)
	}
	return strings.TrimSpace(pub)
}

// fansealSpelling returns fanseal's spelling of a recipient keygen wrote in
// age's.
func fansealSpelling(t *testing.T, agePub string) string {
	t.Helper()
	r, err := fanseal.ParseRecipient(agePub)
	if err != nil || !strings.HasPrefix(agePub, "age1") {
		t.Fatalf("%q: %v", agePub, err)
	}
	return r.String()
}

func TestKeygen(t *testing.T) {
	dir := t.TempDir()
	// The suites age has are written in age's spelling, so that one key
	// serves both programs; the others in fanseal's.
	for suite, prefix := range map[string][2]string{
		"p256":           {"fanseal_p256_", "FANSEAL_SECRET_P256_"},
		"x25519":         {"age1", "AGE-SECRET-KEY-1"},
		"secp256k1":      {"fanseal_secp256k1_", "FANSEAL_SECRET_SECP256K1_"},
		"mlkem768x25519": {"age1pq1", "AGE-SECRET-KEY-PQ-1"},
	} {
		key := filepath.Join(dir, suite+".key")
		pub := keygenTo(t, key, "--suite", suite)
		if !strings.HasPrefix(pub, prefix[0]) || (suite == "x25519" && strings.HasPrefix(pub, "age1pq1")) {
			t.Fatalf("keygen --suite %s reported %q, want %s…", suite, pub, prefix[0])
		}
		st, err := os.Stat(key)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("identity file mode: %v %v", st, err)
		}
		body, _ := os.ReadFile(key)
		lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
		if !strings.HasPrefix(lines[0], "# created: ") || lines[len(lines)-2] != "# public key: "+pub || !strings.HasPrefix(lines[len(lines)-1], prefix[1]) {
			t.Fatalf("identity file of %s, want # created:, # public key: %s and %s…:\n%s", suite, pub, prefix[1], body)
		}
		if got := strings.TrimSpace(mustRun(t, "", "keygen", "-y", key)); got != pub {
			t.Fatalf("keygen -y = %q, want %q", got, pub)
		}
	}
	mustFail(t, "", "exists", "keygen", "-o", filepath.Join(dir, "x25519.key"))
	mustFail(t, "", "unknown suite", "keygen", "--suite", "rsa")
	// To standard output (not a terminal here): the key file's text on
	// stdout, and the public key on stderr too, as age-keygen does.
	status, out, errOut := cli(t, "", "keygen")
	if status != 0 || !strings.Contains(out, "\nAGE-SECRET-KEY-1") {
		t.Fatalf("keygen to stdout: status %d, %q", status, out)
	}
	pub, _ := strings.CutPrefix(strings.TrimSpace(errOut), "Public key: ")
	if !strings.HasPrefix(pub, "age1") || !strings.Contains(out, "# public key: "+pub+"\n") {
		t.Fatalf("keygen to stdout: stderr %q, stdout %q", errOut, out)
	}
}

func setup(t *testing.T, suite string, n int) (dir string, keys, pubs []string) {
	dir = t.TempDir()
	for i := range n {
		key := filepath.Join(dir, suite+string(rune('a'+i))+".key")
		pubs = append(pubs, keygenTo(t, key, "--suite", suite))
		keys = append(keys, key)
	}
	return dir, keys, pubs
}

func TestEncryptDecrypt(t *testing.T) {
	dir, keys, pubs := setup(t, "p256", 3)
	rfile := filepath.Join(dir, "team.txt")
	os.WriteFile(rfile, []byte("# the team\n"+pubs[1]+"\n\n"+pubs[2]+"\n"), 0o644)
	in := filepath.Join(dir, "plain.txt")
	payload := strings.Repeat("fan out, seal once\n", 10000)
	os.WriteFile(in, []byte(payload), 0o644)

	for _, armor := range []bool{false, true} {
		env := filepath.Join(dir, "env")
		args := []string{"encrypt", "-r", pubs[0], "-R", rfile, "-o", env}
		if armor {
			args = append(args, "-a")
		}
		os.Remove(env)
		mustRun(t, "", append(args, in)...)
		raw, _ := os.ReadFile(env)
		if armor != strings.HasPrefix(string(raw), "-----BEGIN FANSEAL ENVELOPE-----") {
			t.Fatalf("armor=%v: envelope starts %q", armor, raw[:20])
		}
		for _, k := range keys {
			out := filepath.Join(dir, "out")
			os.Remove(out)
			mustRun(t, "", "decrypt", "-i", k, "-o", out, env)
			if got, _ := os.ReadFile(out); string(got) != payload {
				t.Fatalf("armor=%v: decrypted payload differs", armor)
			}
		}
		// stdin to stdout
		got := mustRun(t, string(raw), "decrypt", "-i", keys[2])
		if got != payload {
			t.Fatal("stdin/stdout decrypt differs")
		}
	}
	// stdin to stdout encrypt, anonymous
	env := mustRun(t, "hello", "encrypt", "--anonymous", "-r", pubs[0])
	if got := mustRun(t, env, "decrypt", "-i", keys[0]); got != "hello" {
		t.Fatalf("anonymous round trip: %q", got)
	}
}

func TestDecryptFailureLeavesNoOutput(t *testing.T) {
	dir, keys, pubs := setup(t, "x25519", 2)
	_, strangers, _ := setup(t, "x25519", 1)
	payload := strings.Repeat("z", 200000) // four chunks
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	out := filepath.Join(dir, "out")
	cases := []struct {
		name, env, key, want string
	}{
		{"not-recipient", env, strangers[0], "not a recipient"},
		{"cut-in-chunk", env[:len(env)-100], keys[0], "corrupted"},
		{"cut-in-header", env[:60], keys[0], "truncated"},
		{"cut-at-chunk", env[:len(env)-(200000-3*65536)-16], keys[0], "truncated"},
		{"tampered", env[:len(env)-50] + string([]byte{env[len(env)-50] ^ 1}) + env[len(env)-49:], keys[0], "tampered"},
		{"garbage", "not an envelope at all, clearly", keys[0], "not a fanseal envelope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustFail(t, tc.env, tc.want, "decrypt", "-i", tc.key, "-o", out)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("output file exists after a failed decrypt: %v", err)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Fatalf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
	_ = keys[1]
}

// damaged returns key with its third character from the end changed (to
// "q", or to "p" where it was "q": letters of both Bech32's and base32's
// alphabets), so that only its checksum fails. That character carries
// five bits of the key's text: changing the last one could set the
// padding bits of a key whose length leaves some, which fanseal refuses
// as non-canonical before the checksum.
func damaged(key string) string {
	i := len(key) - 3
	c := byte('q')
	if key[i] == 'q' {
		c = 'p'
	}
	return key[:i] + string(c) + key[i+1:]
}

func TestErrors(t *testing.T) {
	dir, keys, pubs := setup(t, "p256", 1)
	_, _, pq := setup(t, "mlkem768x25519", 1)
	bad := filepath.Join(dir, "bad.key")
	os.WriteFile(bad, []byte("# comment\nFANSEAL_SECRET_P256_NOPE\n"), 0o600)
	mustFail(t, "", "unknown command", "frobnicate")
	mustFail(t, "", "at least one -r", "encrypt")
	mustFail(t, "", "at least one -i", "decrypt")
	mustFail(t, "", bad+":2", "decrypt", "-i", bad)
	mustFail(t, "", "checksum", "encrypt", "-r", damaged(pubs[0]))
	mustFail(t, "x", "post-quantum and classical", "encrypt", "-r", pubs[0], "-r", pq[0])
	mustFail(t, "", "no such file", "encrypt", "-r", pubs[0], filepath.Join(dir, "missing"))
	mustFail(t, "", "flag provided but not defined", "encrypt", "--bogus")
	mustFail(t, "", "too many arguments", "decrypt", "-i", keys[0], "a", "b")
	if status, out, _ := cli(t, "", "--help"); status != 0 || !strings.Contains(out, "Examples:") {
		t.Fatalf("--help: %d %q", status, out)
	}
	if status, out, _ := cli(t, "", "encrypt", "-h"); status != 0 || !strings.Contains(out, "Usage:") {
		t.Fatalf("encrypt -h: %d %q", status, out)
	}
	if status, _, errOut := cli(t, ""); status != 1 || !strings.Contains(errOut, "Usage:") {
		t.Fatalf("no arguments: %d %q", status, errOut)
	}
}

func TestInspect(t *testing.T) {
	_, _, pubs := setup(t, "x25519", 2)
	env := mustRun(t, strings.Repeat("a", 70000), "encrypt", "--identified", "-r", pubs[0], "-r", pubs[1])
	var rep inspection
	if err := json.Unmarshal([]byte(mustRun(t, env, "inspect", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Version != 1 || rep.AEAD != "aes256gcm" || rep.Anonymous || len(rep.Recipients) != 2 ||
		rep.Recipients[1].Suite != "x25519" || len(rep.Recipients[1].KeyID) != 16 || rep.PayloadSize != 70000 || rep.Chunks != 2 {
		t.Fatalf("inspect report %+v", rep)
	}
	armored := mustRun(t, "", "encrypt", "-a", "-r", pubs[0])
	text := mustRun(t, armored, "inspect")
	for _, want := range []string{"version 1", "armored:     true", "private", "payload:     0 bytes"} {
		if !strings.Contains(text, want) {
			t.Fatalf("inspect text lacks %q:\n%s", want, text)
		}
	}
	mustFail(t, env[:40], "truncated", "inspect")
}

func TestProgress(t *testing.T) {
	// Not a terminal: the input passes through untouched, nothing printed.
	var errOut bytes.Buffer
	in := strings.NewReader("data")
	r, done := withProgress(in, &errOut, "encrypting")
	done()
	if r != io.Reader(in) || errOut.Len() != 0 {
		t.Fatal("progress outside a terminal")
	}
	// The reader itself reports percentages.
	p := &progressReader{r: strings.NewReader(strings.Repeat("x", 1000)), w: &errOut, total: 1000, verb: "encrypting"}
	if n, err := io.Copy(io.Discard, p); n != 1000 || err != nil {
		t.Fatal(n, err)
	}
	if !strings.Contains(errOut.String(), "encrypting: ") || !strings.Contains(errOut.String(), "%") {
		t.Fatalf("progress line %q", errOut.String())
	}
}

func TestInspectStanzaTypes(t *testing.T) {
	a, _ := fanseal.GenerateIdentity(fanseal.P256)
	b, _ := fanseal.GenerateIdentity(fanseal.P256)
	me, _ := fanseal.GenerateIdentity(fanseal.P256)
	ring, _ := fanseal.NewKeyring(me, 0)
	ring.AddPeer(b.Recipient())
	shared, _ := (&fanseal.Sealer{Strategy: fanseal.Shared}).SealBytes([]byte("x"), a.Recipient(), b.Recipient())
	channel, _ := (&fanseal.Sealer{Strategy: fanseal.Channel, Keyring: ring}).SealBytes([]byte("x"), a.Recipient(), b.Recipient())
	var rep inspection
	json.Unmarshal([]byte(mustRun(t, string(shared), "inspect", "--json")), &rep)
	if len(rep.Recipients) != 2 || rep.Recipients[0].Type != "shared" || len(rep.SharedKeys) != 1 || rep.SharedKeys[0] != "p256" {
		t.Fatalf("shared envelope: %+v", rep)
	}
	rep = inspection{}
	json.Unmarshal([]byte(mustRun(t, string(channel), "inspect", "--json")), &rep)
	if len(rep.Recipients) != 2 || rep.Recipients[0].Type != "hpke" || rep.Recipients[1].Type != "channel" || rep.Recipients[1].Sender == "" {
		t.Fatalf("channel envelope: %+v", rep)
	}
	if text := mustRun(t, string(channel), "inspect"); !strings.Contains(text, "channel") || !strings.Contains(text, "epoch 0") {
		t.Fatalf("inspect text:\n%s", text)
	}
}

// TestToolsAreProgramsOfTheirOwn: the fanseal command links none of what
// only the measuring programs need (plots and their fonts, an HTTP server,
// profiles, the workloads), nor secp256k1-voi, whose package
// initialisation unpacks a 522 KB table on every start (the default build
// has internal/k256 instead; -tags purego keeps voi); and fanseal bench,
// fanseal sim and fanseal help bench say how to run them instead.
func TestToolsAreProgramsOfTheirOwn(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/fanseal/fanseal/cmd/fanseal").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range deps {
		for _, heavy := range []string{"gonum.org/", "codeberg.org/", "google.golang.org/protobuf", "net/http", "runtime/pprof", "encoding/gob",
			"github.com/fanseal/fanseal/cmd/fanseal/internal/bench", "github.com/fanseal/fanseal/cmd/fanseal/internal/sim", "github.com/fanseal/fanseal/cmd/fanseal/internal/chart",
			"gitlab.com/yawning/secp256k1-voi"} {
			if strings.HasPrefix(p, heavy) {
				t.Errorf("the fanseal command depends on %s", p)
			}
		}
	}
	for _, c := range []struct {
		path string
		args []string
	}{
		{"./cmd/fanseal/bench", []string{"bench", "--quick"}},
		{"./cmd/fanseal/sim", []string{"sim", "dkg"}},
		{"./cmd/fanseal/bench", []string{"help", "bench"}},
		{"./cmd/fanseal/sim", []string{"help", "sim"}},
	} {
		path, args := c.path, c.args
		var stdout, stderr strings.Builder
		status := run(args, strings.NewReader(""), &stdout, &stderr)
		if status != 1 || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), "fanseal: error: ") || !strings.Contains(stderr.String(), "go run "+path) {
			t.Errorf("fanseal %s: status %d, stdout %q, stderr %q; want status 1 and go run %s", strings.Join(args, " "), status, stdout.String(), stderr.String(), path)
		}
	}
	help := globalHelp()
	for _, path := range []string{"go run ./cmd/fanseal/bench", "go run ./cmd/fanseal/sim"} {
		if !strings.Contains(help, path) {
			t.Errorf("fanseal --help does not say %s", path)
		}
	}
}
