//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fanseal/fanseal"
	"github.com/fanseal/fanseal/internal/race"
)

// execOK runs the command and fails the test unless it succeeds.
func execOK(t *testing.T, stdin string, args ...string) (stdout, stderr string) {
	t.Helper()
	status, out, errOut := execCLI(t, stdin, args...)
	if status != 0 {
		t.Fatalf("fanseal %v: status %d: %s", args, status, errOut)
	}
	return out, errOut
}

// execFails runs the command and fails the test unless it exits with
// status 1 and an error line that says every one of want.
func execFails(t *testing.T, stdin string, args []string, want ...string) string {
	t.Helper()
	status, _, errOut := execCLI(t, stdin, args...)
	if status != 1 || !strings.HasPrefix(errOut, "fanseal: error: ") {
		t.Fatalf("fanseal %v: status %d, stderr %q; want status 1 and fanseal: error: ...", args, status, errOut)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Fatalf("fanseal %v: stderr %q does not say %q", args, errOut, w)
		}
	}
	return errOut
}

// TestDuplicateRecipientsMerged: one key given twice, with -r and in a -R
// file, in two overlapping -R files, or once in fanseal's spelling and
// once in age's, is one recipient and one stanza, as age has it.
func TestDuplicateRecipientsMerged(t *testing.T) {
	dir, keys, pubs := setup(t, "x25519", 2)
	agePub := pubs[0] // keygen writes age's spelling
	pubs[0] = fansealSpelling(t, agePub)
	team := writeFile(t, dir, "team.txt", []byte("# me\n"+pubs[0]+"\n# bob\n"+pubs[1]+"\n"))
	more := writeFile(t, dir, "more.txt", []byte(pubs[1]+"\n"+agePub+"\n"))
	for _, args := range [][]string{
		{"-r", pubs[0], "-R", team},
		{"-R", team, "-R", more},
		{"-r", pubs[0], "-r", agePub, "-r", pubs[1]},
		{"-r", pubs[0], "-r", pubs[0], "-R", team, "-R", more},
	} {
		env, _ := execOK(t, "for the team", append([]string{"encrypt"}, args...)...)
		rep := mustRun(t, env, "inspect")
		if !strings.Contains(rep, "recipients:  2") {
			t.Fatalf("encrypt %v: inspect says\n%s", args, rep)
		}
		for _, k := range keys {
			if got, _ := execOK(t, env, "decrypt", "-i", k); got != "for the team" {
				t.Fatalf("encrypt %v, decrypt -i %s: %q", args, k, got)
			}
		}
	}
}

// TestRecipientRefusalsNameTheLine: where encrypt refuses a key of its
// recipient list, the message names the file and line, or the -r flag,
// and never list indices.
func TestRecipientRefusalsNameTheLine(t *testing.T) {
	dir, _, pubs := setup(t, "x25519", 2)
	_, _, pq := setup(t, "mlkem768x25519", 1)
	team := writeFile(t, dir, "team.txt", []byte("# alice\n"+pubs[0]+"\n\n# the robot\n"+pq[0]+"\n"))
	bad := writeFile(t, dir, "bad.txt", []byte(pubs[1]+"\n# typo\n"+damaged(pubs[0])+"\n"))
	empty := writeFile(t, dir, "empty.txt", []byte("# nobody yet\n"))
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-R", team}, []string{team + ":5", "post-quantum and classical", team + ":2 (alice)"}},
		{[]string{"-r", pubs[1], "-r", pq[0]}, []string{"-r #2", "post-quantum and classical", "-r #1"}},
		{[]string{"-r", pubs[1], "-R", bad}, []string{bad + ":3", "checksum"}},
		{[]string{"-r", pubs[1], "-r", damaged(pubs[0])}, []string{"-r #2", "checksum"}},
		{[]string{"-R", empty}, []string{empty, "no recipients"}},
	} {
		msg := execFails(t, "x", append([]string{"encrypt"}, c.args...), c.want...)
		if strings.Contains(msg, "recipients 0") || strings.Contains(msg, "recipient 1 ") {
			t.Errorf("encrypt %v: %q names list indices", c.args, msg)
		}
	}
}

// TestSecretKeyAsRecipient: an identity, fanseal's or age's, given with
// -r or in a -R file is recognised, and the message says what to do
// without echoing the secret.
func TestSecretKeyAsRecipient(t *testing.T) {
	dir, keys, _ := setup(t, "x25519", 1)
	fanSecret := secretLine(t, keys[0])
	ageSecret := secretLine(t, ageKeyFiles["x25519"])
	const want = "this is a secret key: pass it with -i, or get its public key with `fanseal keygen -y`"
	for _, secret := range []string{fanSecret, ageSecret} {
		msg := execFails(t, "x", []string{"encrypt", "-r", secret}, "-r #1", want)
		if strings.Contains(msg, secret[len(secret)-20:]) || strings.Contains(msg, secret[:30]) {
			t.Fatalf("the error echoes the secret key: %q", msg)
		}
		file := writeFile(t, dir, "recipients.txt", []byte("# oops\n"+secret+"\n"))
		msg = execFails(t, "x", []string{"encrypt", "-R", file}, file+":2", want)
		if strings.Contains(msg, secret[len(secret)-20:]) {
			t.Fatalf("the error echoes the secret key: %q", msg)
		}
	}
}

// secretLine returns the key line of an identity file.
func secretLine(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	t.Fatalf("%s holds no key", filepath.Base(file))
	return ""
}

// TestAgeFileRecognised: decrypt recognises an age file, binary or
// armored (indented too), and gives it to age's reader, which refuses
// these (a stanza for another key, a cut armor) as age files.
func TestAgeFileRecognised(t *testing.T) {
	dir, keys, _ := setup(t, "x25519", 1)
	ageBinary := "age-encryption.org/v1\n-> X25519 TiFrN5t1QFDfk0SBxFDLaCNHnlbPtS4hIlvDP1Cv1Ak\nSNp3pnmBMNUBhodfyqbs5E2XRQf5ODjSm12FVjQLxE8\n--- QDb7OKmBkYwvCGGgqK1MJVuzHmGG8tVoLTAhFLIgSE4\n\x8a\x01binary payload"
	ageArmor := "-----BEGIN AGE ENCRYPTED FILE-----\nYWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSBUaUZyTjV0MVFGRGZrMFNC\n-----END AGE ENCRYPTED FILE-----\n"
	for name, body := range map[string]string{"binary": ageBinary, "armored": ageArmor, "armored, indented": "\n  " + ageArmor} {
		file := writeFile(t, dir, "secret.age", []byte(body))
		for _, args := range [][]string{{"decrypt", "-i", keys[0], file}, {"inspect", file}, {"decrypt", "-i", ageKeyFiles["x25519"]}} {
			stdin := ""
			if len(args) == 3 {
				stdin = body
			}
			msg := execFails(t, stdin, args, "age file: ")
			if strings.Contains(msg, "not a fanseal envelope") {
				t.Fatalf("%s: fanseal %v: %q", name, args, msg)
			}
		}
	}
}

// TestErrorsNameNoTemporaryFile: when writing the output fails (here at
// the file size limit), the error names the output file, not the hidden
// temporary file the command was writing it through.
func TestErrorsNameNoTemporaryFile(t *testing.T) {
	bin := binary(t)
	dir, keys, pubs := setup(t, "x25519", 1)
	payload := strings.Repeat("not a small file ", 20000)
	env := mustRun(t, payload, "encrypt", "-r", pubs[0])
	in := writeFile(t, dir, "in", []byte(payload))
	envFile := writeFile(t, dir, "in.fsl", []byte(env))
	for _, args := range [][]string{
		{"decrypt", "-i", keys[0], "-o", filepath.Join(dir, "out"), envFile},
		{"encrypt", "-r", pubs[0], "-o", filepath.Join(dir, "out.fsl"), in},
	} {
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -f 16; exec "$0" "$@"`, bin}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil {
			t.Fatalf("fanseal %v under a 8 KiB file size limit succeeded", args)
		}
		msg := stderr.String()
		if !strings.HasPrefix(msg, "fanseal: error: ") || !strings.Contains(msg, args[len(args)-2]) || strings.Contains(msg, ".tmp") {
			t.Fatalf("fanseal %v: stderr %q, want an error naming %s and no temporary file", args, msg, args[len(args)-2])
		}
	}
	// An output in a directory that does not exist.
	out := filepath.Join(dir, "missing", "out.fsl")
	msg := execFails(t, "x", []string{"encrypt", "-r", pubs[0], "-o", out}, out, "no such file or directory")
	if strings.Contains(msg, ".tmp") || strings.Contains(msg, "*") {
		t.Fatalf("stderr %q names the temporary file", msg)
	}
}

// TestErrorClassOnce: a message says its class once ("truncated envelope:
// payload ends inside chunk 2", not "truncated envelope (truncated
// envelope: ...)"), and keygen --suite with a name that is not a suite
// says so and lists the suites.
func TestErrorClassOnce(t *testing.T) {
	_, keys, pubs := setup(t, "x25519", 1)
	env := mustRun(t, strings.Repeat("z", 200000), "encrypt", "-r", pubs[0])
	_, strangers, _ := setup(t, "x25519", 1)
	for _, c := range []struct{ env, key string }{
		{env[:60], keys[0]},
		{env[:len(env)-100], keys[0]},
		{env[:len(env)-(200000-3*65536)-16], keys[0]},
		{"not an envelope at all, clearly", keys[0]},
		{env, strangers[0]},
	} {
		msg := execFails(t, c.env, []string{"decrypt", "-i", c.key})
		for _, class := range []string{"truncated envelope", "malformed envelope", "envelope failed authentication", "no identity", "not a recipient", "corrupted", "tampered"} {
			if n := strings.Count(msg, class); n > 1 {
				t.Errorf("%q says %q %d times", msg, class, n)
			}
		}
		for _, sentinel := range []error{fanseal.ErrTruncated, fanseal.ErrMalformed, fanseal.ErrAuthentication, fanseal.ErrNotRecipient, fanseal.ErrUnsupported} {
			if strings.Contains(msg, "("+sentinel.Error()) {
				t.Errorf("%q repeats its class in parentheses", msg)
			}
		}
	}
	msg := execFails(t, "", []string{"keygen", "--suite", "ed25519"}, "unknown suite \"ed25519\"", "p256, x25519, secp256k1 or mlkem768x25519")
	if strings.Contains(msg, "unsupported envelope") || strings.Contains(msg, "stanza") {
		t.Errorf("keygen --suite ed25519 speaks of envelopes: %q", msg)
	}
}

// TestInspectNamesOwners: inspect -R/-r/-i names each stanza's owner by
// file and line and comment (or -r flag), counts the stanzas it cannot
// name, says the same in --json, and keygen -y prints the key identifier
// inspect shows.
func TestInspectNamesOwners(t *testing.T) {
	dir, keys, pubs := setup(t, "x25519", 4) // alice, bob, carol, dan
	bobAge := pubs[1]
	pubs[1] = fansealSpelling(t, bobAge) // -r in fanseal's spelling; inspect shows keys in age's
	team := writeFile(t, dir, "team.txt", []byte("# the team\n\n# alice\n"+pubs[0]+"\n# bob (laptop)\n"+bobAge+"\n"))
	env := mustRun(t, "for the team", "encrypt", "--identified", "-r", pubs[0], "-r", pubs[1], "-r", pubs[2], "-r", pubs[3])
	envFile := writeFile(t, dir, "env.fsl", []byte(env))

	text, _ := execOK(t, "", "inspect", "-R", team, "-r", pubs[2], "-i", keys[0], envFile)
	for _, want := range []string{
		"recipients:  4 (3 named by the keys given, 1 unknown)",
		team + ":4 (alice), " + keys[0] + ":",
		team + ":6 (bob (laptop))",
		"-r #1",
		"unknown",
	} {
		if !strings.Contains(text, want) {
			t.Fatalf("inspect lacks %q:\n%s", want, text)
		}
	}
	out, _ := execOK(t, "", "inspect", "--json", "-R", team, "-r", pubs[2], "-i", keys[0], envFile)
	var rep inspection
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Named == nil || *rep.Named != 3 || *rep.Unknown != 1 || len(rep.Recipients) != 4 {
		t.Fatalf("inspect --json: %s", out)
	}
	if o := rep.Recipients[1].Owners; len(o) != 1 || o[0].File != team || o[0].Line != 6 || o[0].Comment != "bob (laptop)" || o[0].Key != bobAge {
		t.Fatalf("bob's stanza: owners %+v", o)
	}
	if o := rep.Recipients[2].Owners; len(o) != 1 || o[0].Source != "-r #1" || o[0].Flag != 1 {
		t.Fatalf("carol's stanza: owners %+v", o)
	}
	if len(rep.Recipients[3].Owners) != 0 {
		t.Fatalf("dan's stanza is named: %+v", rep.Recipients[3].Owners)
	}
	_, stderr := execOK(t, "", "keygen", "-y", keys[2])
	if want := "Key id: " + rep.Recipients[2].KeyID; !strings.Contains(stderr, want) {
		t.Fatalf("keygen -y: stderr %q, want %q", stderr, want)
	}
	// A private envelope: public keys name none of its stanzas, an
	// identity finds its own.
	private := writeFile(t, dir, "private.fsl", []byte(mustRun(t, "x", "encrypt", "-r", pubs[3], "-R", team)))
	text, _ = execOK(t, "", "inspect", "-R", team, "-r", pubs[3], private)
	if !strings.Contains(text, "recipients:  3 (private: tags only their recipients compute; 0 found by the identities given, 3 not)") || strings.Contains(text, "alice") {
		t.Fatalf("inspect -R of a private envelope:\n%s", text)
	}
	text, _ = execOK(t, "", "inspect", "-i", keys[0], private)
	if !strings.Contains(text, "1 found by the identities given, 2 not") || !strings.Contains(text, "for you:     stanza ") || !strings.Contains(text, keys[0]+":") {
		t.Fatalf("inspect -i of a private envelope:\n%s", text)
	}
	out, _ = execOK(t, "", "inspect", "--json", "-i", keys[0], private)
	rep = inspection{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	owned := 0
	for _, s := range rep.Recipients {
		if s.KeyID != "" || len(s.Tag) != 16 {
			t.Fatalf("a private stanza: %+v", s)
		}
		owned += len(s.Owners)
	}
	if !rep.Private || owned != 1 {
		t.Fatalf("inspect --json -i of a private envelope: %s", out)
	}
	// "for you, stanza k" counts the header's stanzas, as decrypt does:
	// the stanza alice's identity opens, as the library finds it.
	alice, err := fanseal.ParseIdentities(bytes.NewReader(mustRead(t, keys[0])))
	if err != nil {
		t.Fatal(err)
	}
	k, err := fanseal.StanzaFor(mustRead(t, private), alice[0])
	if err != nil || k < 1 || !strings.Contains(text, fmt.Sprintf("for you:     stanza %d (", k)) {
		t.Fatalf("StanzaFor = %d, %v; inspect -i:\n%s", k, err, text)
	}
	for _, s := range rep.Recipients {
		if len(s.Owners) == 1 && s.Index != k {
			t.Fatalf("inspect --json: alice's stanza is %d, StanzaFor says %d", s.Index, k)
		}
	}
	// An ephemeral key no agreement accepts: inspect still lists the
	// envelope, finding no stanza for the identity.
	bad := mustRead(t, private)
	clear(bad[29+3+2 : 29+3+2+32]) // the X25519 ephemeral key: all zeros, no agreement
	badFile := writeFile(t, dir, "bad.fsl", bad)
	if text, _ := execOK(t, "", "inspect", "-i", keys[0], badFile); !strings.Contains(text, "0 found by the identities given, 3 not") {
		t.Fatalf("inspect -i of a private envelope with an invalid ephemeral key:\n%s", text)
	}
}

// TestEncryptVerbose: encrypt -v says on standard error who the envelope
// is for, by flag or file and line, with the merged duplicates, and how
// many stanzas of which type it holds; without -v it says nothing.
func TestEncryptVerbose(t *testing.T) {
	dir, _, pubs := setup(t, "p256", 3)
	team := writeFile(t, dir, "team.txt", []byte("# alice\n"+pubs[0]+"\n# bob\n"+pubs[1]+"\n"))
	_, stderr := execOK(t, "x", "encrypt", "-v", "--identified", "-r", pubs[2], "-r", pubs[0], "-R", team)
	for _, want := range []string{
		"fanseal: sealed for 3 recipients:",
		"-r #1",
		"-r #2 (also given as " + team + ":2)",
		team + ":4 (bob)",
		"fanseal: 3 stanzas, with key identifiers: 3 hpke (p256)",
	} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("encrypt -v: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, stderr := execOK(t, "x", "encrypt", "--verbose", "-r", pubs[2], "-r", pubs[1]); !strings.Contains(stderr, "3 stanzas, private: tags instead of key identifiers: 1 ephemeral-key (p256), 2 shared (p256)") {
		t.Fatalf("encrypt --verbose: stderr:\n%s", stderr)
	}
	if _, stderr := execOK(t, "x", "encrypt", "-r", pubs[2]); stderr != "" {
		t.Fatalf("encrypt without -v: stderr %q", stderr)
	}
}

// svgTexts returns the texts an SVG file written by the plots holds.
func svgTexts(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range regexp.MustCompile(`(?s)<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(string(b), -1) {
		texts = append(texts, m[1])
	}
	return texts
}

// checkPanels checks that an SVG plot has panels panels, each with a
// title starting with title, the axis labels labels, and at least three
// tick labels per axis matching tick.
func checkPanels(t *testing.T, file string, panels int, title string, tick *regexp.Regexp, axes int, labels ...string) {
	t.Helper()
	texts := svgTexts(t, file)
	count := func(f func(string) bool) (n int) {
		for _, s := range texts {
			if f(s) {
				n++
			}
		}
		return n
	}
	if n := count(func(s string) bool { return strings.HasPrefix(s, title) }); n != panels {
		t.Errorf("%s: %d titles %q..., want %d: %q", filepath.Base(file), n, title, panels, texts)
	}
	for _, l := range labels {
		if n := count(func(s string) bool { return s == l }); n != panels {
			t.Errorf("%s: axis label %q on %d panels of %d", filepath.Base(file), l, n, panels)
		}
	}
	if n := count(tick.MatchString); n < 3*axes*panels {
		t.Errorf("%s: %d tick labels for %d panels of %d labelled axes: %q", filepath.Base(file), n, panels, axes, texts)
	}
}

// TestSimPlotReadable: the plot of fanseal sim dkg has a title, labelled
// axes and at least three time ticks on every panel.
func TestSimPlotReadable(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "dkg.svg")
	execOK(t, "", "sim", "dkg", "--quick", "--members", "4,5", "--duration", "400ms", "--plot", svg)
	durations := regexp.MustCompile(`^[0-9.]+(ns|µs|ms|s|m[0-9.]+s)$`)
	checkPanels(t, svg, 2, "dkg round n=", durations, 1, "latency", "fraction done within")
}

// TestSimKeepsToDuration: fanseal sim dkg asked for a short run whose
// eager rounds are longer than its slots ends within its duration plus
// one round of each size and side; percentiles from fewer than 20 samples
// are marked, in the text and the JSON; the sizes print as "16, 20".
func TestSimKeepsToDuration(t *testing.T) {
	js := filepath.Join(t.TempDir(), "dkg.json")
	if !testing.Short() {
		binary(t) // built before the clock starts
	}
	start := time.Now()
	out, _ := execOK(t, "", "sim", "dkg", "--members", "16,20", "--duration", "300ms", "--rounds", "6", "--json", js)
	elapsed := time.Since(start)
	var rep struct {
		Sides []struct {
			Latency []struct {
				Name  string
				Count int
				Few   bool    `json:"few_samples"`
				Max   float64 `json:"max_ns"`
			}
		}
	}
	b, err := os.ReadFile(js)
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("JSON report: %v", err)
	}
	bound := 300*time.Millisecond + 1500*time.Millisecond // the process, its set-up and profile
	if race.Enabled {
		bound += 4500 * time.Millisecond // the race detector slows set-up and checks
	}
	for _, s := range rep.Sides {
		for _, l := range s.Latency {
			bound += time.Duration(l.Max)
			if l.Count < 20 && !l.Few {
				t.Errorf("%s: %d samples, not marked as few", l.Name, l.Count)
			}
		}
	}
	if elapsed > bound {
		t.Fatalf("sim dkg --duration 300ms took %v, more than %v", elapsed, bound)
	}
	for _, want := range []string{"a key exchange round of 16, 20 members", " *", "* from fewer than 20 samples"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestInstallFromCheckout: the README's install command, go install
// ./cmd/fanseal from the root of a checkout, installs a fanseal that
// runs; and the README gives the published path only as what will work.
func TestInstallFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	requireExec(t)
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	if !strings.Contains(text, "Install from a checkout with `go install ./cmd/fanseal`") ||
		!strings.Contains(text, "Once the module is published, `go install github.com/fanseal/fanseal/cmd/fanseal@latest` will") {
		t.Fatal("README does not give go install ./cmd/fanseal, and the published path as a future one")
	}
	bin := t.TempDir()
	cmd := exec.Command("go", "install", "./cmd/fanseal")
	cmd.Dir = "../../../.."
	cmd.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/fanseal: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "fanseal"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "fanseal ") {
		t.Fatalf("the installed fanseal --version: %v %q", err, out)
	}
}

// TestNotRecipientSaysWhatItNeeds: decrypt's "not a recipient" says what
// the envelope needs: a passphrase, for one sealed to a passphrase; for a
// private envelope, that only an identity tells (inspect -i), where
// inspect -R can name no one.
func TestNotRecipientSaysWhatItNeeds(t *testing.T) {
	fastScrypt(t)
	dir, keys, pubs := setup(t, "x25519", 2)
	in := writeFile(t, dir, "plain", []byte("x"))
	pass := filepath.Join(dir, "pass.fsl")
	withPassphrases(t, "long enough", "long enough")
	mustRun(t, "", "encrypt", "-p", "-o", pass, in)
	mustFail(t, "", "sealed to a passphrase, and no passphrase was given; decrypt it without -i", "decrypt", "-i", keys[0], pass)
	private := filepath.Join(dir, "private.fsl")
	mustRun(t, "", "encrypt", "-r", pubs[1], "-o", private, in)
	msg := execFails(t, "", []string{"decrypt", "-i", keys[0], private}, "a private envelope", "inspect -i IDENTITY ENVELOPE")
	if strings.Contains(msg, "passphrase") {
		t.Fatalf("a private envelope's error speaks of a passphrase: %q", msg)
	}
}
